// Command toolbox is the static binary that runs inside every Docker sandbox.
// It serves the sandbox/toolbox package (the same tool code the local
// backend runs in-process) over stdin/stdout with the line-delimited JSON
// protocol of sandbox/wire: one long-running process per container,
// attached to by the host, so a tool call costs one write and one read.
//
// Usage:
//
//	toolbox serve [-state /work] [-pristine /snapshot] [-synth ARGV] [-asr ARGV] [-allow-probe]
//	toolbox wait
//	toolbox version
//	toolbox private-tmp UID GID SHELL ARGS…   (the local backend's host-shell commands)
//
// The container has no network and no environment from the host; the
// toolbox reads and writes only its state folder. Serving, it keeps the
// stream to itself (guard.go) and holds every process a run_shell command
// starts to its call (sandbox/toolbox.Confine).
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/killchain/killchain/sandbox/toolbox"
)

// version is stamped with -ldflags; it only labels output.
var version = "dev"

func main() {
	if len(os.Args) > 1 && os.Args[1] == toolbox.PrivateTmpCommand {
		// A host-shell command's wrapper (the local backend): it executes
		// the shell, or exits with why it could not.
		os.Exit(toolbox.PrivateTmp(os.Args[2:]))
	}
	if len(os.Args) > 1 && os.Args[1] == "serve" {
		// The stream is the toolbox's alone (guard.go); it ends when the
		// host closes stdin or removes the sandbox, never by a signal.
		in, out, err := guard()
		if err != nil {
			fmt.Fprintln(os.Stderr, "toolbox:", err)
			os.Exit(1)
		}
		os.Exit(run(context.Background(), os.Args[1:], in, out, os.Stderr))
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	code := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprintln(stderr, "usage: toolbox serve|wait|version [flags]")
		return 2
	}
	switch args[0] {
	case "version":
		fmt.Fprintln(stdout, "killchain toolbox", version)
		return 0
	case probeChild:
		return runProbeChild()
	case "wait":
		// A pod's main process: the host execs "serve" beside it. As the
		// pod's init it drops every signal its namespace could send (an
		// agent's `kill 1` would end the pod), reaps whatever is left to
		// it, and ends with the pod (SIGKILL from the node). Its stdout is
		// no stream, but it keeps its /proc entries closed all the same.
		dropSignals()
		if err := toolbox.NonDumpable(); err != nil {
			fmt.Fprintln(stderr, "toolbox:", err)
		}
		reapOrphans()
		return 0
	case "serve":
	default:
		fmt.Fprintf(stderr, "toolbox: unknown command %q\n", args[0])
		return 2
	}
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var cfg config
	fs.StringVar(&cfg.state, "state", "/work", "state folder (writable)")
	fs.StringVar(&cfg.pristine, "pristine", "/snapshot", "pristine snapshot copied into the state folder by prepare")
	fs.StringVar(&cfg.synth, "synth", "", "argv that speaks {text} into the WAV file {out} (space-separated; empty: no speech)")
	fs.StringVar(&cfg.asr, "asr", "", "argv that prints a transcript of {in} (space-separated; empty: no transcription)")
	fs.BoolVar(&cfg.allowProbe, "allow-probe", false, "answer the test-only probe op")
	if err := fs.Parse(args[1:]); err != nil {
		return 2
	}
	if err := serve(ctx, cfg, stdin, stdout); err != nil {
		fmt.Fprintln(stderr, "toolbox:", err)
		return 1
	}
	return 0
}
