package cli

import (
	"io"

	"github.com/hashicorp/go-hclog"

	"github.com/killchain/killchain/internal/secrets"
)

// globals is the process's outside world as the commands see it (its
// output streams and environment) and the flags every command shares.
// Tests build one around buffers and a fake terminal.
type globals struct {
	stdout   io.Writer
	stderr   *console
	getenv   func(string) string
	logLevel string
}

// newGlobals wraps the process's streams; stderr becomes the console that
// the loggers and the progress bar share.
func newGlobals(stdout, stderr io.Writer, getenv func(string) string) *globals {
	return &globals{stdout: stdout, stderr: newConsole(stderr), getenv: getenv}
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
