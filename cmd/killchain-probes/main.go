// Command killchain-probes is the probes command with Ollama's engine
// linked in (cgo): tiny-model, extract, train, score, devices, bench. The
// main killchain binary stays free of cgo and runs this one for the
// commands that need the engine.
package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"syscall"

	"github.com/hashicorp/go-hclog"

	"github.com/killchain/killchain/internal/sanitize"
	"github.com/killchain/killchain/probes"
	"github.com/killchain/killchain/probes/engine"
	"github.com/killchain/killchain/probes/probescli"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	// A study's names (probe targets, run ids) reach the terminal through
	// the one terminal sanitiser, as the killchain command's output does.
	stdout, stderr = sanitize.NewWriter(stdout), sanitize.NewWriter(stderr)
	level := os.Getenv("KILLCHAIN_LOG")
	if level == "" {
		level = "warn"
	}
	// Ollama's engine logs through slog at info level on every load.
	if hclog.LevelFromString(level) > hclog.Info {
		slog.SetDefault(slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelWarn})))
	}
	logger := func() hclog.Logger {
		return hclog.New(&hclog.LoggerOptions{Name: "killchain-probes", Level: hclog.LevelFromString(level), Output: stderr})
	}
	root := probescli.Command(logger, backend{})
	root.Use = probescli.EngineBinary
	root.SilenceUsage, root.SilenceErrors = true, true
	root.SetArgs(args)
	root.SetOut(stdout)
	root.SetErr(stderr)
	if err := root.ExecuteContext(ctx); err != nil {
		fmt.Fprintln(stderr, "killchain-probes:", err)
		return 1
	}
	return 0
}

// backend opens Ollama's engine.
type backend struct{}

func (backend) Open(path string, o probescli.EngineOptions) (probes.Engine, error) {
	return engine.Open(path, engine.Options{Threads: o.Threads, Context: o.Context, Batch: o.Batch, GPULayers: o.GPULayers, Logger: o.Logger})
}

func (backend) Devices(path string) ([]probes.Device, error) { return engine.Devices(path) }
func (backend) Supported() []string                          { return engine.Supported() }
