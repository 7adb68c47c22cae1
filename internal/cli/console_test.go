package cli

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/killchain/killchain/internal/sanitize"
)

// screen is what a terminal shows after out: "\r" returns the cursor to
// the line's start, "\n" starts a new line, "\x1b[K" erases from the
// cursor to the line's end, any other character overwrites the one under
// the cursor. Lines are returned without trailing blanks.
func screen(out string) []string {
	lines := [][]rune{nil}
	col := 0
	rs := []rune(out)
	for i := 0; i < len(rs); i++ {
		cur := &lines[len(lines)-1]
		switch {
		case rs[i] == '\r':
			col = 0
		case rs[i] == '\n':
			lines = append(lines, nil)
			col = 0
		case strings.HasPrefix(string(rs[i:min(i+3, len(rs))]), "\x1b[K"):
			*cur = (*cur)[:min(col, len(*cur))]
			i += 2
		default:
			if col < len(*cur) {
				(*cur)[col] = rs[i]
			} else {
				*cur = append(*cur, rs[i])
			}
			col++
		}
	}
	var out2 []string
	for _, l := range lines {
		out2 = append(out2, strings.TrimRight(string(l), " "))
	}
	if out2[len(out2)-1] == "" {
		out2 = out2[:len(out2)-1]
	}
	return out2
}

// TestConsole: on a terminal, a log line never lands on the bar's line:
// the bar is cleared, the line written, the bar drawn again below it; off
// a terminal, both streams pass through as written.
func TestConsole(t *testing.T) {
	type write struct {
		bar  bool // through the bar's writer, else a log line
		text string
	}
	tests := []struct {
		name   string
		tty    bool
		writes []write
		screen []string
	}{
		{"log line under a bar", true, []write{{true, "\rruns 1/3"}, {false, "WARN one\n"}, {true, "\rruns 2/3"}},
			[]string{"WARN one", "runs 2/3"}},
		{"log lines before any bar", true, []write{{false, "note\n"}, {true, "\rruns 0/3"}},
			[]string{"note", "runs 0/3"}},
		{"a log line in two writes holds the bar", true,
			[]write{{true, "\rruns 1/3"}, {false, "WARN "}, {true, "\rruns 2/3"}, {false, "two\n"}},
			[]string{"WARN two", "runs 2/3"}},
		{"the bar cleared, its last line, then a log line", true,
			[]write{{true, "\rruns 2/3"}, {true, "\r        \r"}, {true, "runs 3/3  errors 0\n"}, {false, "after\n"}},
			[]string{"runs 3/3  errors 0", "after"}},
		{"the last progress line ends a partial log line", true,
			[]write{{false, "partial"}, {true, "runs 3/3\n"}},
			[]string{"partial", "runs 3/3"}},
		{"a bar drawn in pieces", true, []write{{true, "\rruns "}, {true, "1/3"}, {false, "WARN\n"}},
			[]string{"WARN", "runs 1/3"}},
		{"a bar line left without a frame is cleared too", true, []write{{true, "\rruns 1/3"}, {true, "\r"}, {false, "WARN\n"}},
			[]string{"WARN"}},
		{"no terminal", false, []write{{true, "runs 1/3\n"}, {false, "WARN one\n"}, {true, "runs 3/3\n"}},
			[]string{"runs 1/3", "WARN one", "runs 3/3"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out bytes.Buffer
			c := newConsole(&out)
			if tt.tty {
				c = newTerminal(&out, 80)
			}
			for _, w := range tt.writes {
				var dst io.Writer = c
				if w.bar {
					dst = c.bar()
				}
				if n, err := io.WriteString(dst, w.text); err != nil || n != len(w.text) {
					t.Fatalf("write %q: %d, %v", w.text, n, err)
				}
			}
			if got := screen(out.String()); !slices.Equal(got, tt.screen) {
				t.Errorf("screen\n  got  %q\n  want %q\n  raw  %q", got, tt.screen, out.String())
			}
			if !tt.tty && strings.Contains(out.String(), clearLine) {
				t.Errorf("off a terminal the console wrote %q: %q", clearLine, out.String())
			}
		})
	}
}

// failingModelStudy runs 8 runs, one at a time, of a model whose server
// answers every call with a 500: each run logs a retry warning, an error
// and a failed run while the progress bar shows.
func failingModelStudy(t *testing.T) string {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		if r.Method == http.MethodGet {
			w.Write([]byte(`{"object":"list","data":[{"id":"q","object":"model"}]}`))
			return
		}
		w.Header().Set("Retry-After", "0")
		w.WriteHeader(http.StatusInternalServerError)
		w.Write([]byte(`{"error":{"message":"boom","type":"server_error","param":null,"code":null}}`))
	}))
	t.Cleanup(srv.Close)
	return writeStudy(t, `
study "progress" {
  seed        = 1
  sandbox     = "local"
  attempts    = 1
  concurrency = 1
}
model "fake" {
  provider    = "openai_compatible"
  name        = "q"
  base_url    = "`+srv.URL+`/v1"
  max_retries = 1
}
grid "g" {
  tasks      = ["memory_poison"]
  variants   = ["direct"]
  models     = ["fake"]
  conditions = ["plain", "hack"]
  repeats    = 4
}
`)
}

var logLine = regexp.MustCompile(`^\d{4}-\d\d-\d\dT[\d:.]+Z \[(WARN|ERROR)\] +killchain\.(model|runner): `)

// TestRunProgressAndLogs: with a terminal, every WARN and ERROR line starts
// its own line (never glued to the bar), no bar is left on screen, its
// frames fit the terminal, and the final progress line shows once; without
// one, the final progress line prints once. Retry warnings name the model
// once.
func TestRunProgressAndLogs(t *testing.T) {
	for _, tty := range []bool{true, false} {
		name := map[bool]string{true: "terminal", false: "no terminal"}[tty]
		t.Run(name, func(t *testing.T) {
			file := failingModelStudy(t)
			var stdout, stderr bytes.Buffer
			g := newGlobals(&stdout, &stderr, os.Getenv)
			if tty {
				g.stderr = newTerminal(&stderr, 80)
			}
			out := filepath.Join(t.TempDir(), "out")
			if code := execute(context.Background(), g, []string{"run", "--output", out, file}); code != exitOK {
				t.Fatalf("exit %d\n%s%s", code, stdout.String(), stderr.String())
			}
			raw := stderr.String()
			if strings.Contains(raw, clearLine) != tty {
				t.Errorf("clear-line sequences written: %v, want %v", !tty, tty)
			}
			lines := screen(raw)
			logs, finals := 0, 0
			for _, l := range lines {
				switch {
				case strings.HasPrefix(l, "runs 8/8  errors 8"):
					finals++
				case strings.Contains(l, "[WARN]") || strings.Contains(l, "[ERROR]"):
					logs++
					if !logLine.MatchString(l) {
						t.Errorf("log line does not start its line: %q", l)
					}
					if strings.Count(l, "model=fake") > 1 {
						t.Errorf("log line names the model twice: %q", l)
					}
				case strings.HasPrefix(l, "killchain: sandbox \"local\""):
				case !tty && strings.HasPrefix(l, "runs ") && strings.Contains(l, "/8  errors"):
					// a progress line every few seconds: the first one here
				default:
					t.Errorf("unexpected line on screen: %q", l)
				}
			}
			if logs != 3*8 || finals != 1 {
				t.Errorf("%d log lines (want 24), final progress line %d times (want 1):\n%s", logs, finals, strings.Join(lines, "\n"))
			}
			if !strings.Contains(raw, "killchain.model: retrying model call: model=fake attempt=1") {
				t.Errorf("no retry warning naming the model once:\n%s", raw)
			}
			frames := 0
			for _, seg := range strings.FieldsFunc(raw, func(r rune) bool { return r == '\r' || r == '\n' }) {
				if strings.HasPrefix(seg, "[") && strings.Contains(seg, "] runs ") {
					frames++
					if n := utf8.RuneCountInString(strings.TrimSuffix(seg, "\x1b[K")); n >= 80 {
						t.Errorf("bar frame of %d columns on an 80-column terminal: %q", n, seg)
					}
				}
			}
			if (frames > 0) != tty {
				t.Errorf("%d bar frames drawn, want some only on a terminal", frames)
			}
			if !strings.Contains(stdout.String(), "8 ran, 8 errors") {
				t.Errorf("summary: %s", stdout.String())
			}
		})
	}
}

// FuzzConsole: whatever the bar draws between them, every log line ends
// up on a line of its own, whole (as the terminal sanitiser shows it) and
// in order.
func FuzzConsole(f *testing.F) {
	f.Add("runs 0/3|WARN one|runs 1/3|ERROR two|runs 2/3")
	f.Add("|a||b|")
	f.Add("runs (errors 1)  33% |███    | (1/3)|2026-12-01T00:00:00Z [WARN] x: y|r")
	f.Add("[███░░░] runs 1/3  errors 0  retried 0  elapsed 1s  eta 2s\x1b[K|2026-12-01T00:00:00Z [WARN] x: y|r")
	f.Fuzz(func(t *testing.T, script string) {
		if !utf8.ValidString(script) {
			t.Skip("a terminal shows text; screen reads runes")
		}
		var out bytes.Buffer
		c := newTerminal(&out, 80)
		plain := strings.NewReplacer("\r", "", "\n", "", "\x1b", "")
		var logs []string
		for i, part := range strings.Split(script, "|") {
			part = plain.Replace(part)
			if i%2 == 0 {
				io.WriteString(c.bar(), "\r"+part)
				continue
			}
			io.WriteString(c, part+"\n")
			// What reaches the screen is the line made safe: a control
			// character shown as its escape (sanitize.Terminal).
			logs = append(logs, strings.TrimRight(sanitize.Terminal(part), " "))
		}
		lines := screen(out.String())
		if len(lines) < len(logs) || !slices.Equal(lines[:len(logs)], logs) {
			t.Errorf("screen %q\nwant the log lines %q first", lines, logs)
		}
	})
}
