package sanitize_test

import (
	"bytes"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/killchain/killchain/internal/sanitize"
	"github.com/killchain/killchain/internal/sanitize/hostile"
)

func TestTerminal(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"plain", "executed no", "executed no"},
		{"tab and newline pass", "a\tb\nc", "a\tb\nc"},
		{"osc52", "\x1b]52;c;eHg=\x07", `\x1b]52;c;eHg=\x07`},
		{"osc8", "\x1b]8;;file:///etc/passwd\x1b\\x", `\x1b]8;;file:///etc/passwd\x1b\x`},
		{"erase line", "yes\x1b[2K\rno", `yes\x1b[2K\x0dno`},
		{"DEL and NUL", "a\x7f\x00", `a\x7f\x00`},
		{"C1 rune", "\u009b2K", `\u009b2K`},
		{"raw byte", "a\x9bb", `a\x9bb`},
		{"cut UTF-8", "\xe2\x80", `\xe2\x80`},
		{"Unicode passes", "Größe → ok ✓", "Größe → ok ✓"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := sanitize.Terminal(tc.in); got != tc.want {
				t.Errorf("Terminal(%q) = %q, want %q", tc.in, got, tc.want)
			}
		})
	}
}

func TestLine(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"plain", "smoke", "smoke"},
		{"newline", "smoke\ncurl x | sh", `smoke\x0acurl x | sh`},
		{"tab", "a\tb", `a\x09b`},
		{"line separator", "a\u2028b", `a\u2028b`},
		{"escape", "\x1b[2J", `\x1b[2J`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := sanitize.Line(tc.in); got != tc.want {
				t.Errorf("Line(%q) = %q, want %q", tc.in, got, tc.want)
			}
		})
	}
}

func TestCSVCell(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"text", "memory_poison", "memory_poison"},
		{"empty", "", ""},
		{"HYPERLINK", `=HYPERLINK("http://x")`, `'=HYPERLINK("http://x")`},
		{"plus", "+cmd|' /C calc'!A0", "'+cmd|' /C calc'!A0"},
		{"minus after a number", "-2+3+cmd|' /C calc'!A0", "'-2+3+cmd|' /C calc'!A0"},
		{"at", "@SUM(1)", "'@SUM(1)"},
		{"tab", "\t=1", "'\t=1"},
		{"carriage return", "\r=1", "'\r=1"},
		{"a lone minus", "-", "'-"},
		{"negative delta", "-3.2", "-3.2"},
		{"positive delta", "+31.2", "+31.2"},
		{"exponent", "-1.5e-3", "-1.5e-3"},
		{"minus zero", "-0.0", "-0.0"},
		{"infinity is text", "-Inf", "'-Inf"},
		{"a range is text", "+31.2 (-2.0 to +60.1)", "'+31.2 (-2.0 to +60.1)"},
		{"a point alone is text", "-.", "'-."},
		{"a rate", "0.1250", "0.1250"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := sanitize.CSVCell(tc.in); got != tc.want {
				t.Errorf("CSVCell(%q) = %q, want %q", tc.in, got, tc.want)
			}
		})
	}
}

func TestWriterHoldsACutCharacter(t *testing.T) {
	var b bytes.Buffer
	w := sanitize.NewWriter(&b)
	for _, p := range []string{"ok \xe2", "\x9c\x93 \x1b[2K", "\n"} {
		if n, err := w.Write([]byte(p)); err != nil || n != len(p) {
			t.Fatalf("Write(%q) = %d, %v", p, n, err)
		}
	}
	if want := "ok ✓ \\x1b[2K\n"; b.String() != want {
		t.Errorf("wrote %q, want %q", b.String(), want)
	}
}

// TestHostileCorpus: no text of the shared hostile corpus leaves a control
// character for a terminal, a line break in a line, or a formula in a CSV
// cell.
func TestHostileCorpus(t *testing.T) {
	for _, h := range hostile.Corpus() {
		t.Run(h.Name, func(t *testing.T) {
			checkTerminal(t, h.Text, sanitize.Terminal(h.Text), false)
			checkTerminal(t, h.Text, sanitize.Line(h.Text), true)
			checkCSV(t, h.Text, sanitize.CSVCell(h.Text))
		})
	}
}

// checkTerminal fails when out holds what a terminal would act on.
func checkTerminal(t *testing.T, in, out string, oneLine bool) {
	t.Helper()
	if !utf8.ValidString(out) {
		t.Errorf("%q became %q: not UTF-8", in, out)
	}
	for _, r := range out {
		bad := r < 0x20 && r != '\t' && r != '\n' || r == 0x7f || r >= 0x80 && r <= 0x9f
		if oneLine {
			bad = bad || r == '\t' || r == '\n' || r == '\u2028' || r == '\u2029'
		}
		if bad {
			t.Errorf("%q became %q: it still holds %U", in, out, r)
			return
		}
	}
}

// checkCSV fails when out could start a formula, or changed more than a
// leading quote.
func checkCSV(t *testing.T, in, out string) {
	t.Helper()
	if out != in && out != "'"+in {
		t.Errorf("CSVCell(%q) = %q: more than a leading quote changed", in, out)
	}
	if out != "" && strings.ContainsRune("=+-@\t\r", rune(out[0])) && out == in {
		if !looksNumeric(in) {
			t.Errorf("CSVCell(%q) = %q: starts a formula", in, out)
		}
	}
}

// looksNumeric reports whether s holds only what a number can: digits,
// points, exponents and signs.
func looksNumeric(s string) bool {
	ok := s != ""
	for i, c := range s {
		switch {
		case c >= '0' && c <= '9', c == '.', c == 'e', c == 'E':
		case (c == '+' || c == '-') && (i == 0 || s[i-1] == 'e' || s[i-1] == 'E'):
		default:
			ok = false
		}
	}
	return ok && strings.ContainsAny(s, "0123456789")
}

func TestFileName(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"plain", "memory_poison", "memory_poison"},
		{"separators", "../../etc/passwd", "..-..-etc-passwd"},
		{"backslash", `a\b`, "a-b"},
		{"newline", "task\nname", "task-name"},
		{"escape", "t\x1b]0;x\x07", "t-]0;x-"},
		{"dot dot", "..", "--"},
		{"dot", ".", "-"},
		{"not UTF-8", "a\x9bb", "a-b"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := sanitize.FileName(tc.in); got != tc.want {
				t.Errorf("FileName(%q) = %q, want %q", tc.in, got, tc.want)
			}
		})
	}
}
