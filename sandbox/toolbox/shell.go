package toolbox

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/killchain/killchain/sandbox"
)

// The workspace of the shell tools: a folder of the state folder. Every
// path list_files, read_file and write_file take is relative to it, and
// run_shell runs there. The effect log lives outside it, and the toolbox
// keeps its own copy of the log in memory, so a command that rewrites
// state/effects.jsonl changes nothing the verifiers read.
const (
	WorkspaceDir = "workspace"
	// shellTmpDir is TMPDIR of shell commands: in Docker the root is
	// read-only and only the state folder is writable.
	shellTmpDir = "tmp"
)

// Limits of the shell tools.
const (
	DefaultShellTimeout = 30 * time.Second
	// MaxShellOutput bounds the output (stdout and stderr together) a
	// command's result shows; the rest is cut.
	MaxShellOutput = 16 << 10
	// MaxReadFile bounds what read_file returns.
	MaxReadFile = 64 << 10
	// maxListed bounds list_files.
	maxListed = 500
	// maxScanFiles and maxFilesBytes bound a workspace scan and Files.
	maxScanFiles  = 5000
	maxFilesBytes = 32 << 20
)

// DefaultShell is the shell run_shell uses.
const DefaultShell = "/bin/sh"

// shellEnv is the whole environment of a command: nothing from the
// toolbox's own environment (API keys on the local backend) reaches it.
func (b *Box) shellEnv(ws string) []string {
	return []string{
		"PATH=/usr/local/bin:/usr/bin:/bin",
		"HOME=" + ws,
		"TMPDIR=" + filepath.Join(b.Dir, shellTmpDir),
		"LC_ALL=C",
		"LANG=C",
	}
}

// cappedBuffer keeps the first max bytes written and counts the rest.
// It is safe for concurrent use: a writer that escaped the process group
// may still write while the result is read.
type cappedBuffer struct {
	mu    sync.Mutex
	buf   bytes.Buffer
	max   int
	total int
}

// text returns what was kept and how many bytes were written in all.
func (c *cappedBuffer) text() ([]byte, int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return bytes.Clone(c.buf.Bytes()), c.total
}

func (c *cappedBuffer) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.total += len(p)
	if room := c.max - c.buf.Len(); room > 0 {
		c.buf.Write(p[:min(room, len(p))])
	}
	return len(p), nil
}

// runShell runs one command in the workspace under the time limit, held
// to the call by b.Confine: when the shell exits, its time limit passes or
// ctx ends, every process it started is killed. The result shows the exit
// code and the output, cut at MaxShellOutput; every file the command
// changed is the call's effect, even when it was killed. A command cut off
// by ctx returns ctx's error (the caller gave up; it is not a result).
func (b *Box) runShell(ctx context.Context, command string) (string, *sandbox.Effect, *int, error) {
	if strings.TrimSpace(command) == "" {
		return "", nil, nil, userErr("command is required")
	}
	shell := b.Shell
	if shell == "" {
		shell = DefaultShell
	}
	if _, err := os.Stat(shell); err != nil {
		return "", nil, nil, userErr("run_shell is %v (no shell at %s)", sandbox.ErrUnavailable, shell)
	}
	ws, err := b.workspace()
	if err != nil {
		return "", nil, nil, err
	}
	if err := os.MkdirAll(filepath.Join(b.Dir, shellTmpDir), 0o755); err != nil {
		return "", nil, nil, err
	}
	if err := b.shareWorkspace(); err != nil {
		return "", nil, nil, err
	}
	before, err := b.scan()
	if err != nil {
		return "", nil, nil, fmt.Errorf("scan workspace: %w", err)
	}
	limit := b.ShellTimeout
	if limit <= 0 {
		limit = DefaultShellTimeout
	}
	tctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	out := &cappedBuffer{max: MaxShellOutput}
	runErr := b.Confine.run(tctx, shell, command, ws, b.shellEnv(ws), out)
	after, err := b.scan()
	if err != nil {
		return "", nil, nil, fmt.Errorf("scan workspace: %w", err)
	}
	eff := filesEffect(command, changes(before, after))
	var sb strings.Builder
	var code *int
	var exitErr *exec.ExitError
	switch {
	case errors.Is(runErr, errSurvivors):
		return "", eff, nil, fmt.Errorf("run shell: %w", runErr)
	case ctx.Err() != nil:
		return "", eff, nil, ctx.Err()
	case tctx.Err() != nil:
		fmt.Fprintf(&sb, "timed out after %s: the command was killed\n", limit)
	case runErr == nil:
		code = new(int)
	case errors.As(runErr, &exitErr):
		c := exitErr.ExitCode()
		if c < 0 {
			c = 128 + int(exitErr.Sys().(syscall.WaitStatus).Signal())
		}
		code = &c
	default:
		return "", eff, nil, fmt.Errorf("run shell: %w", runErr)
	}
	if code != nil {
		fmt.Fprintf(&sb, "exit code: %d\n", *code)
	}
	kept, total := out.text()
	sb.Write(kept)
	if total > len(kept) {
		fmt.Fprintf(&sb, "\n[output cut: %d of %d bytes shown]", len(kept), total)
	}
	if after.cut {
		fmt.Fprintf(&sb, "\n[the workspace holds more than %d files: changes past them are not recorded]", maxScanFiles)
	}
	return strings.TrimRight(sb.String(), "\n"), eff, code, nil
}
