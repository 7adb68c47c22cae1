package runner

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"
)

// fakeTerminal is a Terminal of a fixed width over a buffer.
type fakeTerminal struct {
	bytes.Buffer
	cols int
}

func (f *fakeTerminal) TerminalWidth() int { return f.cols }

// TestProgress: off a terminal the last count prints once, at Finish; on
// a Terminal the bar's frames fit its width and Finish leaves one line.
func TestProgress(t *testing.T) {
	tests := []struct {
		name  string
		cols  int // 0: a plain buffer
		total int
	}{
		{"lines", 0, 3},
		{"lines, one run", 0, 1},
		{"bar on 80 columns", 80, 390},
		{"bar on 60 columns", 60, 12},
		{"bar on 200 columns", 200, 5},
		{"terminal of no width", -1, 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var (
				out  *bytes.Buffer
				prog *Progress
			)
			if tt.cols != 0 {
				term := &fakeTerminal{cols: tt.cols}
				out, prog = &term.Buffer, NewProgress(term, tt.total)
			} else {
				out = &bytes.Buffer{}
				prog = NewProgress(out, tt.total)
			}
			for i := range tt.total {
				prog.Done(i == 0)
			}
			prog.Finish()
			final := fmt.Sprintf("runs %d/%d  errors 1", tt.total, tt.total)
			if n := strings.Count(out.String(), final); n != 1 {
				t.Errorf("final line %q printed %d times:\n%q", final, n, out.String())
			}
			if !strings.HasSuffix(out.String(), "\n") {
				t.Errorf("output does not end its line: %q", out.String())
			}
			frames := 0
			for _, seg := range strings.FieldsFunc(out.String(), func(r rune) bool { return r == '\r' || r == '\n' }) {
				if strings.HasPrefix(seg, "runs (errors") {
					frames++
					if w := utf8.RuneCountInString(strings.TrimRight(seg, " ")); tt.cols > 0 && w >= tt.cols {
						t.Errorf("frame of %d columns on %d: %q", w, tt.cols, seg)
					}
				}
			}
			if (frames > 0) != (tt.cols > 0) {
				t.Errorf("%d bar frames, want some only on a terminal of some width", frames)
			}
		})
	}
}

// TestProgressSpent: a priced study's line says what it spent, from what
// earlier starts spent, and how many 429 answers its runs met; an unpriced
// one says neither.
func TestProgressSpent(t *testing.T) {
	var out bytes.Buffer
	p := NewProgress(&out, 2)
	p.Spent(1.5)
	p.Cost(1.91, 2)
	p.Done(false)
	p.Cost(0, 0)
	p.Done(false)
	p.Finish()
	if line := out.String(); !strings.Contains(line, "$3.41 spent") || !strings.Contains(line, "rate-limited 2") {
		t.Errorf("progress %q lacks the spend or the rate limits", line)
	}
	out.Reset()
	p = NewProgress(&out, 1)
	p.Done(false)
	p.Finish()
	if line := out.String(); strings.Contains(line, "spent") || strings.Contains(line, "rate-limited") {
		t.Errorf("an unpriced study's progress %q speaks of money", line)
	}
}
