package runner

import (
	"bytes"
	"fmt"
	"regexp"
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
			// The frames drawn in place: each fits the terminal.
			frames := 0
			for _, seg := range strings.FieldsFunc(out.String(), func(r rune) bool { return r == '\r' || r == '\n' }) {
				if strings.HasPrefix(seg, final) || !strings.HasSuffix(seg, clearToEnd) {
					continue
				}
				frames++
				if w := utf8.RuneCountInString(strings.TrimSuffix(seg, clearToEnd)); w >= tt.cols {
					t.Errorf("frame of %d columns on %d: %q", w, tt.cols, seg)
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
	if line := out.String(); !strings.Contains(line, "cost $3.41") || !strings.Contains(line, "rate-limited 2") {
		t.Errorf("progress %q lacks the spend or the rate limits", line)
	}
	out.Reset()
	p = NewProgress(&out, 1)
	p.Done(false)
	p.Finish()
	if line := out.String(); strings.Contains(line, "cost") || strings.Contains(line, "rate-limited") {
		t.Errorf("an unpriced study's progress %q speaks of money", line)
	}
}

// TestProgressFields: the line labels every field, the ETA included, and
// a frame fits its terminal: the bar narrows, then goes, then the fields
// are cut, so that the line never wraps.
func TestProgressFields(t *testing.T) {
	p := NewProgress(&bytes.Buffer{}, 100)
	p.Spent(0)
	for i := range 26 {
		p.Done(i%2 == 0)
	}
	p.Retried()
	line := p.line()
	want := regexp.MustCompile(`^runs 26/100  errors 13  retried 1  cost \$0  elapsed \d+s  eta \d+s$`)
	if !want.MatchString(line) {
		t.Errorf("line %q, want %s", line, want)
	}
	tests := []struct {
		name string
		cols int
		bar  bool
	}{
		{"wide", 200, true},
		{"80 columns", 80, true},
		{"no room for a bar", 70, false},
		{"narrow", 30, false},
		{"none", 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := frame(line, 26, 100, tt.cols)
			if n := utf8.RuneCountInString(f); n > tt.cols {
				t.Errorf("frame of %d runes in %d columns: %q", n, tt.cols, f)
			}
			if strings.HasPrefix(f, "[") != tt.bar {
				t.Errorf("frame %q: bar %v, want %v", f, !tt.bar, tt.bar)
			}
			if tt.bar && !strings.HasSuffix(f, line) {
				t.Errorf("frame %q does not hold the whole line", f)
			}
		})
	}
}
