package cli

import (
	"io"

	"github.com/hashicorp/go-hclog"

	"github.com/killchain/killchain/internal/sanitize"
	"github.com/killchain/killchain/internal/secrets"
)

// globals is the process's outside world as the commands see it (its
// output streams and environment) and the flags every command shares.
// Tests build one around buffers and a fake terminal.
//
// What the commands print may carry a model's, an attacker's or a task's
// text, so both streams pass through the one terminal sanitiser
// (sanitize.Terminal): stdout through a sanitize.Writer, stderr (log
// lines, notes, error messages) through the console. Only show, which
// styles a run's text itself after sanitising it, writes to rawStdout.
type globals struct {
	stdout    io.Writer
	rawStdout io.Writer
	stderr    *console
	getenv    func(string) string
	logLevel  string
}

// newGlobals wraps the process's streams; stderr becomes the console that
// the loggers and the progress bar share.
func newGlobals(stdout, stderr io.Writer, getenv func(string) string) *globals {
	return &globals{stdout: sanitize.NewWriter(stdout), rawStdout: stdout, stderr: newConsole(stderr), getenv: getenv}
}

// envOr returns the environment variable k, or def when it is unset or
// empty.
func (g *globals) envOr(k, def string) string {
	if v := g.getenv(k); v != "" {
		return v
	}
	return def
}

// logger returns the command's logger, writing through the console; with
// sec, every line is scrubbed of the API keys the drivers read.
func (g *globals) logger(sec *secrets.Set) hclog.Logger {
	var out io.Writer = g.stderr
	if sec != nil {
		out = scrubWriter{w: g.stderr, s: sec}
	}
	return hclog.New(&hclog.LoggerOptions{Name: "killchain", Level: hclog.LevelFromString(g.logLevel), Output: out})
}

// scrubWriter removes secrets from what passes through it.
type scrubWriter struct {
	w io.Writer
	s *secrets.Set
}

func (s scrubWriter) Write(p []byte) (int, error) {
	if _, err := s.w.Write(s.s.ScrubBytes(p)); err != nil {
		return 0, err
	}
	return len(p), nil
}
