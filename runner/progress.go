package runner

import (
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"golang.org/x/term"

	"github.com/killchain/killchain/internal/cost"
)

// Progress reports a study's runs as one line of labelled fields:
//
//	runs 26/100  errors 12  retried 3  cost $0.41  elapsed 9s  eta 27s
//
// On a terminal the line is drawn in place behind a bar, again as runs end
// and every second, and never wider than the terminal (the bar shrinks,
// then goes, then the line is cut), so that it never wraps; off one, the
// same line is printed at most every few seconds, and at the end.
type Progress struct {
	mu      sync.Mutex
	w       io.Writer
	width   func() int // the terminal's columns; nil off a terminal
	total   int
	done    int
	errors  int
	retried int
	// spent is what the study cost so far and priced whether to show it;
	// throttled counts 429 answers.
	spent     float64
	priced    bool
	throttled int
	start     time.Time
	last      time.Time // the last line printed or frame drawn
	interval  time.Duration
	drawn     bool          // a frame is on the terminal's line
	printed   string        // off a terminal, the line printed last
	stop      chan struct{} // ends the redraw ticker
	finished  bool
}

// A Terminal is a progress writer that shows a bar on a terminal of its
// width in columns (0: not a terminal), such as the command line's stderr,
// which keeps its log lines clear of the bar.
type Terminal interface {
	io.Writer
	TerminalWidth() int
}

// redraw is how often a terminal's line is drawn again with nothing
// finished (the elapsed time and the ETA move), and throttle how often
// runs that end together redraw it.
const (
	redraw   = time.Second
	throttle = 100 * time.Millisecond
)

// NewProgress returns a progress reporter for total runs writing to w: a
// bar when w is a terminal file or a Terminal of some width, else lines.
func NewProgress(w io.Writer, total int) *Progress {
	p := &Progress{w: w, total: total, start: time.Now(), interval: 5 * time.Second}
	switch t := w.(type) {
	case Terminal:
		if t.TerminalWidth() > 0 {
			p.width = t.TerminalWidth
		}
	case *os.File:
		if fd := int(t.Fd()); term.IsTerminal(fd) {
			p.width = func() int {
				if cols, _, err := term.GetSize(fd); err == nil && cols > 0 {
					return cols
				}
				return 80
			}
		}
	}
	if p.width != nil {
		p.stop = make(chan struct{})
		p.draw()
		go p.tick()
	}
	return p
}

// tick redraws the terminal's line every second until Finish.
func (p *Progress) tick() {
	t := time.NewTicker(redraw)
	defer t.Stop()
	for {
		select {
		case <-p.stop:
			return
		case <-t.C:
			p.mu.Lock()
			p.draw()
			p.mu.Unlock()
		}
	}
}

// Done records one finished run.
func (p *Progress) Done(errored bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.done++
	if errored {
		p.errors++
	}
	p.update(errored)
}

// Retried records a run tried again after a sandbox or provider error.
func (p *Progress) Retried() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.retried++
	p.update(false)
}

// Spent shows the cost on every line from now on, starting at usd (what
// the study spent before this start).
func (p *Progress) Spent(usd float64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.priced, p.spent = true, usd
}

// Cost adds a recorded run's cost and the 429 answers it met; call it
// before Done.
func (p *Progress) Cost(usd float64, rateLimited int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.spent += usd
	p.throttled += rateLimited
}

// update shows a change: on a terminal at once when now is set (an error
// shows the moment it is recorded), else at most every throttle; off one,
// a line at most every interval (the last line waits for Finish).
func (p *Progress) update(now bool) {
	if p.finished {
		return
	}
	since := time.Since(p.last)
	switch {
	case p.width != nil && (now || since >= throttle):
		p.draw()
	case p.width == nil && since >= p.interval && p.done < p.total:
		p.last, p.printed = time.Now(), p.line()
		fmt.Fprintln(p.w, p.printed)
	}
}

// line is the progress's fields, labelled.
func (p *Progress) line() string {
	el := time.Since(p.start)
	eta := "?"
	switch {
	case p.done >= p.total:
		eta = "0s"
	case p.done > 0:
		eta = (el / time.Duration(p.done) * time.Duration(p.total-p.done)).Round(time.Second).String()
	}
	var b strings.Builder
	fmt.Fprintf(&b, "runs %d/%d  errors %d  retried %d", p.done, p.total, p.errors, p.retried)
	if p.priced {
		fmt.Fprintf(&b, "  cost %s", cost.Dollars(p.spent))
	}
	if p.throttled > 0 {
		fmt.Fprintf(&b, "  rate-limited %d", p.throttled)
	}
	fmt.Fprintf(&b, "  elapsed %s  eta %s", el.Round(time.Second), eta)
	return b.String()
}

// draw draws the terminal's line in place: a bar, then the fields, in
// one column less than the terminal has; p.mu is held.
func (p *Progress) draw() {
	if p.finished {
		return
	}
	p.last = time.Now()
	fmt.Fprint(p.w, "\r"+frame(p.line(), p.done, p.total, p.width()-1)+clearToEnd)
	p.drawn = true
}

// clearToEnd erases the rest of a terminal's line (what a longer frame
// left there).
const clearToEnd = "\x1b[K"

// frame fits the fields into cols columns behind a bar of up to 30
// columns, "[█████░░░░░] ": the bar narrows to leave the fields whole and
// goes below 10 columns; the fields alone are cut to fit.
func frame(fields string, done, total, cols int) string {
	n := utf8.RuneCountInString(fields)
	room := min(30, cols-n-1) - 2 // the brackets
	if room < 8 {
		return truncate(fields, cols)
	}
	full := room
	if total > 0 {
		full = room * min(done, total) / total
	}
	return "[" + strings.Repeat("█", full) + strings.Repeat("░", room-full) + "] " + fields
}

// truncate cuts s to at most cols runes.
func truncate(s string, cols int) string {
	if cols <= 0 {
		return ""
	}
	if utf8.RuneCountInString(s) <= cols {
		return s
	}
	return string([]rune(s)[:cols])
}

// Finish prints the final line (in place of the bar on a terminal; the
// only line with the last count otherwise) and stops redrawing.
func (p *Progress) Finish() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.finished {
		return
	}
	if p.stop != nil {
		close(p.stop)
	}
	line := p.line()
	p.finished = true
	if line == p.printed {
		return // a study stopped just after a line said the same
	}
	if p.drawn {
		line = "\r" + line + clearToEnd
	}
	fmt.Fprintln(p.w, line)
}
