package runner

import (
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"
)

// Progress reports runs done, errors and an ETA: a bar on a terminal, plain
// lines (at most one every few seconds, and the last) otherwise.
type Progress struct {
	mu       sync.Mutex
	w        io.Writer
	total    int
	done     int
	errors   int
	retried  int
	start    time.Time
	last     time.Time
	interval time.Duration
	bar      *progressbar.ProgressBar
}

// NewProgress returns a progress reporter for total runs writing to w.
func NewProgress(w io.Writer, total int) *Progress {
	p := &Progress{w: w, total: total, start: time.Now(), interval: 5 * time.Second}
	if f, ok := w.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		p.bar = progressbar.NewOptions(total,
			progressbar.OptionSetWriter(w),
			progressbar.OptionSetDescription("runs"),
			progressbar.OptionShowCount(),
			progressbar.OptionSetPredictTime(true),
			progressbar.OptionShowElapsedTimeOnFinish(),
			progressbar.OptionThrottle(100*time.Millisecond),
			progressbar.OptionClearOnFinish(),
		)
	}
	return p
}

// Done records one finished run.
func (p *Progress) Done(errored bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.done++
	if errored {
		p.errors++
	}
	if p.bar != nil {
		p.bar.Describe(p.describe())
		_ = p.bar.Add(1)
		return
	}
	if now := time.Now(); now.Sub(p.last) >= p.interval || p.done == p.total {
		p.last = now
		fmt.Fprintln(p.w, p.line())
	}
}

// Retried records a run tried again after a sandbox or provider error.
func (p *Progress) Retried() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.retried++
	if p.bar != nil {
		p.bar.Describe(p.describe())
	}
}

// describe is the bar's label.
func (p *Progress) describe() string {
	if p.retried > 0 {
		return fmt.Sprintf("runs (errors %d, retried %d)", p.errors, p.retried)
	}
	return fmt.Sprintf("runs (errors %d)", p.errors)
}

func (p *Progress) line() string {
	el := time.Since(p.start)
	eta := "?"
	if p.done > 0 && p.done < p.total {
		eta = (el / time.Duration(p.done) * time.Duration(p.total-p.done)).Round(time.Second).String()
	} else if p.done >= p.total {
		eta = "0s"
	}
	return fmt.Sprintf("runs %d/%d  errors %d  retried %d  elapsed %s  eta %s", p.done, p.total, p.errors, p.retried, el.Round(time.Second), eta)
}

// Finish prints the final line.
func (p *Progress) Finish() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.bar != nil {
		_ = p.bar.Finish()
	}
	fmt.Fprintln(p.w, p.line())
}
