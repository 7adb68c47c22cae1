package sanitize_test

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"github.com/killchain/killchain/internal/sanitize"
	"github.com/killchain/killchain/internal/sanitize/hostile"
)

func seed(f *testing.F) {
	for _, h := range hostile.Corpus() {
		f.Add(h.Text)
	}
}

// FuzzTerminal: whatever the text, Terminal leaves nothing a terminal acts
// on, changes nothing clean, and a second pass changes nothing more.
func FuzzTerminal(f *testing.F) {
	seed(f)
	f.Fuzz(func(t *testing.T, s string) {
		out := sanitize.Terminal(s)
		checkTerminal(t, s, out, false)
		if again := sanitize.Terminal(out); again != out {
			t.Errorf("a second pass changed %q to %q", out, again)
		}
		if sanitize.Line(s) == s && out != s {
			t.Errorf("%q is clean for a line but not for a terminal: %q", s, out)
		}
	})
}

// FuzzLine: Line leaves one line with nothing a terminal acts on.
func FuzzLine(f *testing.F) {
	seed(f)
	f.Fuzz(func(t *testing.T, s string) {
		out := sanitize.Line(s)
		checkTerminal(t, s, out, true)
		if again := sanitize.Line(out); again != out {
			t.Errorf("a second pass changed %q to %q", out, again)
		}
	})
}

// FuzzCSVCell: no cell starts a formula unless it is a number, and only a
// leading quote is ever added.
func FuzzCSVCell(f *testing.F) {
	seed(f)
	for _, s := range []string{"-3.2", "+1e5", "-", "+.5", "1e", "-1e+"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		checkCSV(t, s, sanitize.CSVCell(s))
	})
}

// FuzzWriter: text written in two pieces, cut anywhere (inside a
// character too), comes out as Terminal of the whole.
func FuzzWriter(f *testing.F) {
	for _, h := range hostile.Corpus() {
		f.Add(h.Text, uint(len(h.Text)/2))
	}
	f.Fuzz(func(t *testing.T, s string, cut uint) {
		c := int(cut % uint(len(s)+1))
		var b bytes.Buffer
		w := sanitize.NewWriter(&b)
		for _, p := range []string{s[:c], s[c:], "\n"} {
			if _, err := w.Write([]byte(p)); err != nil {
				t.Fatal(err)
			}
		}
		if want := sanitize.Terminal(s + "\n"); b.String() != want {
			t.Errorf("wrote %q in two pieces at %d: got %q, want %q", s, c, b.String(), want)
		}
	})
}

// FuzzFileName: a cleaned name is one local path component with no
// control character.
func FuzzFileName(f *testing.F) {
	seed(f)
	for _, s := range []string{"..", ".", "a/../b", `..\..`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		out := sanitize.FileName(s)
		if out == "" {
			if s != "" {
				t.Fatalf("FileName(%q) is empty", s)
			}
			return
		}
		if !filepath.IsLocal(out) || filepath.Base(out) != out || strings.ContainsAny(out, `/\`) {
			t.Fatalf("FileName(%q) = %q: not one local name", s, out)
		}
		checkTerminal(t, s, out, true)
	})
}
