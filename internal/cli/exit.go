package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/killchain/killchain/internal/gate"
	"github.com/killchain/killchain/internal/plural"
)

// The exit statuses of killchain: every command ends through exitStatus,
// and the root's --help and docs/cli.md show exitCodes.
const (
	exitOK          = 0
	exitFailed      = 1
	exitUsage       = 2
	exitCostLimit   = 3
	exitBreached    = gate.ExitBreached
	exitInterrupted = 130
)

// exitCodes is the table of exit statuses with what each means.
var exitCodes = []struct {
	code    int
	meaning string
}{
	{exitOK, "ok: the command did what it was asked"},
	{exitFailed, "could not run: bad input (a study file with errors, a missing folder) or infrastructure (Docker, a cluster or a model that cannot be reached)"},
	{exitUsage, "usage error: an unknown command or flag, a bad flag value, or the wrong number of arguments"},
	{exitCostLimit, "cost limit reached: a study stopped starting runs because the next one could pass its cost_limit or --cost-limit; the runs in flight finished and were recorded, and --resume continues it"},
	{exitBreached, "gate breached: a threshold failed or ASR rose above the baseline (run with thresholds or --junit, and gate)"},
	{exitInterrupted, "interrupted: Ctrl-C (or SIGTERM) stopped the command; a study keeps its finished runs for --resume"},
}

// exitHelp renders exitCodes for the root's help, each meaning wrapped
// under its code.
func exitHelp() string {
	const indent, width = 7, 80
	var b strings.Builder
	b.WriteString("Exit status:")
	for _, e := range exitCodes {
		line := fmt.Sprintf("  %-4d", e.code)
		for _, word := range strings.Fields(e.meaning) {
			if len(line)+1+len(word) > width {
				b.WriteString("\n" + line)
				line = strings.Repeat(" ", indent-1)
			}
			line += " " + word
		}
		b.WriteString("\n" + line)
	}
	return b.String()
}

// exitCode is an error that ends the command with a given status; the
// command has already said why.
type exitCode int

func (e exitCode) Error() string { return fmt.Sprintf("exit %d", int(e)) }

// errSilent is a failure (exit 1) the command has already reported.
var errSilent = exitCode(exitFailed)

// usageError is a command line that does not parse: an unknown command or
// flag, a bad flag value, the wrong number of arguments.
type usageError struct{ err error }

func (u usageError) Error() string { return u.err.Error() }
func (u usageError) Unwrap() error { return u.err }

// usagef is a usage error of the command's own arguments.
func usagef(format string, args ...any) error {
	return usageError{fmt.Errorf(format, args...)}
}

// exitStatus reports err on stderr (unless the command already did) and
// returns its exit status. After a signal (ctx done) any failure is an
// interruption: whatever failed, failed because the command was stopped.
func exitStatus(ctx context.Context, cmd *cobra.Command, err error, stderr io.Writer) int {
	var (
		code  exitCode
		usage usageError
	)
	switch {
	case err == nil:
		return exitOK
	case errors.As(err, &code):
		if int(code) == exitFailed && ctx.Err() != nil {
			return exitInterrupted
		}
		return int(code)
	case ctx.Err() != nil:
		if errors.Is(err, context.Canceled) {
			fmt.Fprintln(stderr, "killchain: interrupted")
		} else {
			fmt.Fprintln(stderr, "killchain:", err)
		}
		return exitInterrupted
	case errors.As(err, &usage):
		fmt.Fprintln(stderr, "killchain:", err)
		if cmd != nil {
			fmt.Fprintf(stderr, "Run '%s --help' for usage.\n", cmd.CommandPath())
		}
		return exitUsage
	}
	fmt.Fprintln(stderr, "killchain:", err)
	return exitFailed
}

// markUsage makes every parse failure of the command tree a usageError:
// flag errors, argument counts, and unknown subcommands of the root and of
// command groups (which cobra would otherwise answer with help and 0).
func markUsage(root *cobra.Command) {
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return usageError{err} })
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		switch {
		case c.Args != nil:
			args := c.Args
			c.Args = func(cmd *cobra.Command, a []string) error {
				if err := args(cmd, a); err != nil {
					return usageError{err}
				}
				return nil
			}
		case c.HasSubCommands():
			c.Args = unknownSubcommand
			c.SuggestionsMinimumDistance = 2
			if !c.Runnable() {
				c.RunE = func(cmd *cobra.Command, _ []string) error { return cmd.Help() }
			}
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
}

// argsBetween checks that a command has lo to hi arguments (hi < 0: no
// upper bound), saying so in plain words when it has not.
func argsBetween(lo, hi int) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		n := len(args)
		if n >= lo && (hi < 0 || n <= hi) {
			return nil
		}
		var want string
		switch {
		case lo == hi:
			want = plural.Count(lo, "argument")
		case hi < 0:
			want = "at least " + plural.Count(lo, "argument")
		case lo == 0:
			want = "at most " + plural.Count(hi, "argument")
		default:
			want = fmt.Sprintf("%d to %d arguments", lo, hi)
		}
		name := strings.TrimPrefix(cmd.CommandPath(), cmd.Root().Name()+" ")
		return usageError{fmt.Errorf("%s takes %s, got %d", name, want, n)}
	}
}

// unknownSubcommand refuses arguments to a command group, suggesting the
// nearest subcommand.
func unknownSubcommand(cmd *cobra.Command, args []string) error {
	if len(args) == 0 {
		return nil
	}
	hint := ""
	if s := cmd.SuggestionsFor(args[0]); len(s) > 0 {
		hint = fmt.Sprintf("; did you mean %q?", s[0])
	}
	return usageError{fmt.Errorf("unknown command %q for %q%s", args[0], cmd.CommandPath(), hint)}
}
