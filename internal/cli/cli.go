// Package cli is killchain's command line: root.go lists every command,
// one file per command parses its flags, builds the pieces it needs and
// calls into the packages that do the work; exit.go holds the exit codes.
package cli

import (
	"context"
	"io"
	"os"
)

// Main runs the command line with the process's environment and returns
// the exit status (see exitCodes).
func Main(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	return execute(ctx, newGlobals(stdout, stderr, os.Getenv), args)
}

// execute runs one command line against g.
func execute(ctx context.Context, g *globals, args []string) int {
	root := newRoot(g)
	root.SetArgs(args)
	cmd, err := root.ExecuteContextC(ctx)
	return exitStatus(ctx, cmd, err, g.stderr)
}
