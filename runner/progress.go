package runner

import (
	"fmt"
	"io"
	"os"
	"strconv"
	"sync"
	"time"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"

	"github.com/killchain/killchain/internal/cost"
)

// Progress reports runs done, errors and an ETA: a bar on a terminal, plain
// lines (at most one every few seconds, and the last) otherwise.
type Progress struct {
	mu      sync.Mutex
	w       io.Writer
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
	last      time.Time
	interval  time.Duration
	bar       *progressbar.ProgressBar
}

// A Terminal is a progress writer that shows a bar on a terminal of its
// width in columns (0: not a terminal), such as the command line's stderr,
// which keeps its log lines clear of the bar.
type Terminal interface {
	io.Writer
	TerminalWidth() int
}

// NewProgress returns a progress reporter for total runs writing to w: a
// bar when w is a terminal file or a Terminal of some width, else lines.
func NewProgress(w io.Writer, total int) *Progress {
	p := &Progress{w: w, total: total, start: time.Now(), interval: 5 * time.Second}
	width := 0
	switch t := w.(type) {
	case Terminal:
		width = barWidth(t.TerminalWidth(), total)
	case *os.File:
		if term.IsTerminal(int(t.Fd())) {
			width = 40 // progressbar narrows it to the terminal
		}
	}
	if width > 0 {
		p.bar = progressbar.NewOptions(total,
			progressbar.OptionSetWidth(width),
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

// barWidth is the width of a bar whose line fits in cols columns beside
// its widest label, percentage, count and times; 0 when cols is 0.
func barWidth(cols, total int) int {
	if cols <= 0 {
		return 0
	}
	digits := len(strconv.Itoa(total))
	label := len(fmt.Sprintf("runs (errors %d, retried %d)", total, total))
	rest := label + len(" 100% ||") + len(" (/) ") + 2*digits + len("[10m30s:1h20m30s] ")
	return min(max(cols-rest, 10), 40)
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
		// Describe redraws the bar at once; Add redraws it at most every
		// 100 ms. Hundreds of runs ending together redraw it only when the
		// label changed.
		if errored || p.priced {
			p.bar.Describe(p.describe())
		}
		_ = p.bar.Add(1)
		return
	}
	if now := time.Now(); now.Sub(p.last) >= p.interval && p.done < p.total {
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
	if rateLimited > 0 {
		p.throttled += rateLimited
		if p.bar != nil {
			p.bar.Describe(p.describe())
		}
	}
}

// extra is what the label and line add after the counts: the money spent
// ("$3.41 spent") and the rate limits met.
func (p *Progress) extra(sep string) string {
	s := ""
	if p.priced {
		s += sep + cost.Dollars(p.spent) + " spent"
	}
	if p.throttled > 0 {
		s += sep + fmt.Sprintf("rate-limited %d", p.throttled)
	}
	return s
}

// describe is the bar's label.
func (p *Progress) describe() string {
	if p.retried > 0 {
		return fmt.Sprintf("runs (errors %d, retried %d%s)", p.errors, p.retried, p.extra(", "))
	}
	return fmt.Sprintf("runs (errors %d%s)", p.errors, p.extra(", "))
}

func (p *Progress) line() string {
	el := time.Since(p.start)
	eta := "?"
	if p.done > 0 && p.done < p.total {
		eta = (el / time.Duration(p.done) * time.Duration(p.total-p.done)).Round(time.Second).String()
	} else if p.done >= p.total {
		eta = "0s"
	}
	return fmt.Sprintf("runs %d/%d  errors %d  retried %d%s  elapsed %s  eta %s", p.done, p.total, p.errors, p.retried, p.extra("  "), el.Round(time.Second), eta)
}

// Finish prints the final line (in place of the bar on a terminal; the
// only line with the last count otherwise).
func (p *Progress) Finish() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.bar != nil {
		_ = p.bar.Finish()
	}
	fmt.Fprintln(p.w, p.line())
}
