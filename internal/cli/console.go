package cli

import (
	"bytes"
	"io"
	"os"
	"sync"

	"golang.org/x/term"

	"github.com/killchain/killchain/internal/sanitize"
)

// console is the process's stderr, shared by the loggers, the notes the
// commands print and the progress bar, from several goroutines: its writes
// are serialized. On a terminal it keeps the bar on its own line: a log
// line clears the bar, is written, and the bar is drawn again below it.
// Log lines go through the console itself; the bar draws through bar().
type console struct {
	mu    sync.Mutex
	w     io.Writer
	width func() int // the terminal's width in columns; nil when w is not a terminal
	frame []byte     // the bar's line as it last drew it; empty when no bar shows
	drawn bool       // the bar has drawn on the cursor's line: a log line clears it first
	open  bool       // a log line is written in part: the bar waits for its end
}

// newConsole returns the console over w, a terminal when w is one.
func newConsole(w io.Writer) *console {
	c := &console{w: w}
	if f, ok := w.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		fd := int(f.Fd())
		c.width = func() int {
			if cols, _, err := term.GetSize(fd); err == nil && cols > 0 {
				return cols
			}
			return 80
		}
	}
	return c
}

// newTerminal is a console that treats w as a terminal of the given width
// (tests stand in for one this way).
func newTerminal(w io.Writer, cols int) *console {
	return &console{w: w, width: func() int { return cols }}
}

// clearLine returns the cursor to the line's start and erases the line.
const clearLine = "\r\x1b[K"

// Write writes log output: log lines, notes and error messages, which may
// quote a model's, an attacker's or a task's text, so every byte passes
// through the terminal sanitiser (sanitize.Terminal; hclog's own quoting of
// values comes first and is left as it is). On a terminal showing a bar,
// the bar's line is cleared first and the bar drawn again once the log
// line has ended.
func (c *console) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := len(p)
	p = []byte(sanitize.Terminal(string(p)))
	if c.width == nil || n == 0 {
		if _, err := c.w.Write(p); err != nil {
			return 0, err
		}
		return n, nil
	}
	var buf []byte
	if !c.open && c.drawn {
		buf = append(buf, clearLine...)
	}
	buf = append(buf, p...)
	c.open = p[len(p)-1] != '\n'
	c.drawn = false
	if !c.open {
		buf = append(buf, c.frame...)
		c.drawn = len(c.frame) > 0
	}
	if _, err := c.w.Write(buf); err != nil {
		return 0, err
	}
	return n, nil
}

// bar returns the writer the progress bar draws on.
func (c *console) bar() io.Writer { return consoleBar{c} }

// consoleBar is the console as the progress bar sees it: a terminal of
// TerminalWidth columns (runner.Progress draws a bar on it), or plain
// lines when the console is not a terminal.
type consoleBar struct{ c *console }

// TerminalWidth is the terminal's width in columns, 0 when the console is
// not a terminal.
func (b consoleBar) TerminalWidth() int {
	if b.c.width == nil {
		return 0
	}
	return b.c.width()
}

// Write draws the bar, remembering what it leaves on its line so that a
// log line can draw it again. The bar draws with escape sequences of its
// own, and its label holds counts and money only; its plain lines, off a
// terminal, pass through the terminal sanitiser like every log line.
func (b consoleBar) Write(p []byte) (int, error) {
	c := b.c
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.width == nil || len(p) == 0 {
		if _, err := io.WriteString(c.w, sanitize.Terminal(string(p))); err != nil {
			return 0, err
		}
		return len(p), nil
	}
	if i := bytes.LastIndexAny(p, "\r\n"); i >= 0 {
		c.frame = append(c.frame[:0], p[i+1:]...)
	} else {
		c.frame = append(c.frame, p...)
	}
	if c.open {
		if bytes.IndexByte(p, '\n') < 0 {
			// Drawn from the frame once the log line ends.
			return len(p), nil
		}
		// A whole line of progress (its last): it ends the log line.
		c.open = false
		if _, err := io.WriteString(c.w, "\n"); err != nil {
			return 0, err
		}
	}
	c.drawn = p[len(p)-1] != '\n'
	return c.w.Write(p)
}
