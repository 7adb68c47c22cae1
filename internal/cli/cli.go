// Package cli wires killchain's commands: it parses flags, builds the
// pieces a command needs and calls into the packages that do the work.
package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"

	"github.com/hashicorp/go-hclog"
	"github.com/spf13/cobra"

	"github.com/killchain/killchain/internal/secrets"
)

// errSilent marks a failure already reported to the user.
var errSilent = errors.New("")

// Main runs the command line and returns the exit code.
func Main(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	root := newRoot(stdout, stderr)
	root.SetArgs(args)
	err := root.ExecuteContext(ctx)
	var code exitCode
	if err != nil && !errors.Is(err, errSilent) && !errors.As(err, &code) {
		fmt.Fprintln(stderr, "killchain:", err)
	}
	return codeOf(err)
}

type globals struct {
	stdout, stderr io.Writer
	logLevel       string
}

// logger returns the command's logger; with secrets, every line is
// scrubbed of the API keys the drivers read.
func (g *globals) logger(sec ...*secrets.Set) hclog.Logger {
	out := g.stderr
	if len(sec) > 0 && sec[0] != nil {
		out = scrubWriter{w: g.stderr, s: sec[0]}
	}
	return hclog.New(&hclog.LoggerOptions{Name: "killchain", Level: hclog.LevelFromString(g.logLevel), Output: out})
}

// lockedWriter serializes writes to w.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
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

func newRoot(stdout, stderr io.Writer) *cobra.Command {
	// The progress bar and the loggers (hclog, the drivers' retry notes)
	// write to stderr from several goroutines. A file takes concurrent
	// writes (and the progress bar needs it to find a terminal); any other
	// writer gets one lock for all of them.
	if _, ok := stderr.(*os.File); !ok {
		stderr = &lockedWriter{w: stderr}
	}
	g := &globals{stdout: stdout, stderr: stderr}
	root := &cobra.Command{
		Use:   "killchain",
		Short: "Run LLM agents through prompt-injection scenarios and track each canary through the kill chain",
		Long: `killchain runs LLM agents through prompt-injection scenarios, each run in its own sandbox,
and tracks a fresh canary token per attacked run through the kill-chain stages
Exposed → Persisted → Relayed → Executed. It writes runs.jsonl, events.jsonl and
transcripts, and turns them into tables with Wilson 95% confidence intervals.

A study is an HCL file (see hcl/smoke.hcl). Typical use:

  killchain validate hcl/smoke.hcl     check a study file
  killchain plan hcl/smoke.hcl         show its cells and run counts
  killchain run hcl/smoke.hcl          run it (Ctrl-C stops; --resume finishes it)
  killchain report runs/smoke          write its tables, figures and report.html to runs/smoke/report/
  killchain recount runs/smoke         re-derive every run's stages from its transcript (0 disagreements)
  killchain doctor hcl/local.hcl       check that Docker and the study's models can be reached

For CI: killchain run --tasks A,B --sample N --junit FILE hcl/ci.hcl judges the study's
threshold blocks when it ends (exit 99 on a breach; see killchain gate). Stages are
decided from what each sandbox actually did (its effect log), never from what a model
asked for.

Sandboxes run in Docker (the default), or as hardened pods on a Kubernetes cluster
with sandbox = "kubernetes" and a kubernetes { } block in the study (or --sandbox
kubernetes); killchain sandbox gc --kubernetes cleans up after a killed study.`,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetOut(stdout)
	root.SetErr(stderr)
	root.PersistentFlags().StringVar(&g.logLevel, "log-level", envOr("KILLCHAIN_LOG", "warn"), "log level: trace, debug, info, warn or error")
	root.AddCommand(
		newRunCmd(g), newValidateCmd(g), newPlanCmd(g), newReportCmd(g), newTasksCmd(g),
	)
	for _, add := range extraCommands {
		root.AddCommand(add(g))
	}
	return root
}

// extraCommands are added by other files of the package (images, sandbox, bench, doctor).
var extraCommands []func(*globals) *cobra.Command

func envOr(k, def string) string {
	if v := os.Getenv(k); v != "" {
		return v
	}
	return def
}
