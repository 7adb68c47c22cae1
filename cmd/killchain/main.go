// Command killchain runs live-agent prompt-injection studies and reports them.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/killchain/killchain/internal/cli"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := cli.Main(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}
