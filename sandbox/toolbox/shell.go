package toolbox

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"sort"
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

// wsPath resolves a path relative to the workspace, refusing escapes:
// through "..", and through a symbolic link that leads out of it.
func (b *Box) wsPath(rel string) (string, error) {
	ws := filepath.Join(b.Dir, WorkspaceDir)
	clean := path.Clean("/" + strings.TrimSpace(rel))
	p := filepath.Join(ws, filepath.FromSlash(clean[1:]))
	// Resolve the deepest folder that exists and check it stays inside.
	dir := p
	for {
		real, err := filepath.EvalSymlinks(dir)
		if err == nil {
			rws, werr := filepath.EvalSymlinks(ws)
			if werr != nil {
				return "", werr
			}
			if real != rws && !strings.HasPrefix(real, rws+string(filepath.Separator)) {
				return "", userErr("path %q leads out of the workspace", rel)
			}
			break
		}
		if dir == ws || !errors.Is(err, fs.ErrNotExist) {
			break
		}
		dir = filepath.Dir(dir)
	}
	return p, nil
}

// fileSum is what a scan records of one file.
type fileSum struct {
	sum  string
	size int64
}

// scan hashes every regular file (and the target of every symbolic link)
// under the workspace, keyed by workspace-relative slash path.
func (b *Box) scan() (map[string]fileSum, error) {
	ws := filepath.Join(b.Dir, WorkspaceDir)
	out := map[string]fileSum{}
	err := filepath.WalkDir(ws, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == ws && errors.Is(err, fs.ErrNotExist) {
				return fs.SkipAll
			}
			if errors.Is(err, fs.ErrPermission) {
				return nil // a folder the command made unreadable: its files are not seen
			}
			return err
		}
		if d.IsDir() {
			return nil
		}
		rel, err := filepath.Rel(ws, p)
		if err != nil {
			return err
		}
		if len(out) >= maxScanFiles {
			return fmt.Errorf("workspace holds more than %d files", maxScanFiles)
		}
		rel = filepath.ToSlash(rel)
		switch {
		case d.Type()&fs.ModeSymlink != 0:
			target, err := os.Readlink(p)
			if err != nil {
				return err
			}
			out[rel] = fileSum{sum: hashOf([]byte("symlink:" + target)), size: int64(len(target))}
		case d.Type().IsRegular():
			data, err := os.ReadFile(p)
			if errors.Is(err, fs.ErrPermission) {
				out[rel] = fileSum{sum: "unreadable"}
				return nil
			}
			if err != nil {
				return err
			}
			out[rel] = fileSum{sum: hashOf(data), size: int64(len(data))}
		}
		return nil
	})
	return out, err
}

func hashOf(data []byte) string {
	h := sha256.Sum256(data)
	return hex.EncodeToString(h[:])
}

// changes lists what differs between two scans, by path.
func changes(before, after map[string]fileSum) []sandbox.FileChange {
	var out []sandbox.FileChange
	for p, a := range after {
		b, ok := before[p]
		switch {
		case !ok:
			out = append(out, sandbox.FileChange{Path: p, Change: sandbox.FileAdded, SHA256: a.sum, Size: a.size})
		case b != a:
			out = append(out, sandbox.FileChange{Path: p, Change: sandbox.FileModified, SHA256: a.sum, Size: a.size})
		}
	}
	for p := range before {
		if _, ok := after[p]; !ok {
			out = append(out, sandbox.FileChange{Path: p, Change: sandbox.FileDeleted})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out
}

// filesEffect is the effect of a call that changed files, or nil.
func filesEffect(command string, ch []sandbox.FileChange) *sandbox.Effect {
	if len(ch) == 0 {
		return nil
	}
	return &sandbox.Effect{Kind: sandbox.EffectFiles, Command: command, Files: ch}
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

// runShell runs one command in the workspace under the time limit, in a
// process group of its own that is killed whole when the limit passes. The
// result shows the exit code and the output, cut at MaxShellOutput; every
// file the command changed is the call's effect, even when it was killed.
func (b *Box) runShell(command string) (string, *sandbox.Effect, *int, error) {
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
	ws := filepath.Join(b.Dir, WorkspaceDir)
	for _, d := range []string{ws, filepath.Join(b.Dir, shellTmpDir)} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return "", nil, nil, err
		}
	}
	before, err := b.scan()
	if err != nil {
		return "", nil, nil, fmt.Errorf("scan workspace: %w", err)
	}
	limit := b.ShellTimeout
	if limit <= 0 {
		limit = DefaultShellTimeout
	}
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	out := &cappedBuffer{max: MaxShellOutput}
	runErr := runGroup(ctx, shell, command, ws, b.shellEnv(ws), out)
	after, err := b.scan()
	if err != nil {
		return "", nil, nil, fmt.Errorf("scan workspace: %w", err)
	}
	eff := filesEffect(command, changes(before, after))
	var sb strings.Builder
	var code *int
	var exitErr *exec.ExitError
	switch {
	case ctx.Err() != nil:
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
	return strings.TrimRight(sb.String(), "\n"), eff, code, nil
}

// runGroup runs sh -c command in a process group of its own, its stdout
// and stderr into out. When the shell exits (or ctx ends) the whole group
// is killed, so nothing it started in the background outlives the call,
// and out is complete once the group's last writer is gone.
func runGroup(ctx context.Context, shell, command, dir string, env []string, out io.Writer) error {
	r, w, err := os.Pipe()
	if err != nil {
		return err
	}
	cmd := exec.Command(shell, "-c", command)
	cmd.Dir, cmd.Env = dir, env
	cmd.Stdout, cmd.Stderr = w, w
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		r.Close()
		w.Close()
		return err
	}
	w.Close()
	copied := make(chan struct{})
	go func() {
		io.Copy(out, r)
		close(copied)
	}()
	kill := func() { _ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	waited := make(chan error, 1)
	go func() { waited <- cmd.Wait() }()
	var runErr error
	select {
	case runErr = <-waited:
		kill()
	case <-ctx.Done():
		kill()
		runErr = <-waited
	}
	select {
	case <-copied:
	case <-time.After(2 * time.Second):
	}
	r.Close()
	return runErr
}

// readFile returns a workspace file's text, cut at MaxReadFile.
func (b *Box) readFile(rel string) (string, error) {
	if strings.TrimSpace(rel) == "" {
		return "", userErr("path is required")
	}
	p, err := b.wsPath(rel)
	if err != nil {
		return "", err
	}
	data, err := os.ReadFile(p)
	if badPath(err) || errors.Is(err, fs.ErrPermission) {
		return "", userErr("no such file: %s", rel)
	}
	if err != nil {
		return "", err
	}
	if len(data) > MaxReadFile {
		return string(data[:MaxReadFile]) + fmt.Sprintf("\n[cut: %d of %d bytes shown]", MaxReadFile, len(data)), nil
	}
	return string(data), nil
}

// writeFile creates or replaces a workspace file; the change is the effect.
func (b *Box) writeFile(rel, content string) (string, *sandbox.Effect, error) {
	if strings.TrimSpace(rel) == "" {
		return "", nil, userErr("path is required")
	}
	p, err := b.wsPath(rel)
	if err != nil {
		return "", nil, err
	}
	if p == filepath.Join(b.Dir, WorkspaceDir) {
		return "", nil, userErr("path %q is the workspace itself", rel)
	}
	if fi, err := os.Lstat(p); err == nil && !fi.Mode().IsRegular() {
		return "", nil, userErr("%s is not a regular file", rel)
	}
	before, err := b.scan()
	if err != nil {
		return "", nil, fmt.Errorf("scan workspace: %w", err)
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return "", nil, userErr("cannot create the folder of %s: %v", rel, err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		return "", nil, userErr("cannot write %s: %v", rel, err)
	}
	after, err := b.scan()
	if err != nil {
		return "", nil, fmt.Errorf("scan workspace: %w", err)
	}
	return fmt.Sprintf("wrote %d bytes to %s", len(content), rel), filesEffect("", changes(before, after)), nil
}

// listFiles lists the files under a workspace folder with their sizes.
func (b *Box) listFiles(rel string) (string, error) {
	root, err := b.wsPath(rel)
	if err != nil {
		return "", err
	}
	ws := filepath.Join(b.Dir, WorkspaceDir)
	var lines []string
	err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == root {
				return err
			}
			return nil
		}
		if d.IsDir() {
			return nil
		}
		if len(lines) >= maxListed {
			return fs.SkipAll
		}
		r, _ := filepath.Rel(ws, p)
		info, err := d.Info()
		if err != nil {
			return nil
		}
		lines = append(lines, fmt.Sprintf("%s\t%d bytes", filepath.ToSlash(r), info.Size()))
		return nil
	})
	if badPath(err) {
		return "", userErr("no such folder: %s", rel)
	}
	if err != nil {
		return "", err
	}
	if len(lines) == 0 {
		return "no files", nil
	}
	sort.Strings(lines)
	return strings.Join(lines, "\n"), nil
}

// Files returns the regular files under dir (relative to the state folder),
// keyed by state-relative slash path. Symbolic links are not followed and
// not returned. More than maxFilesBytes in all is an error.
func (b *Box) Files(dir string) (map[string][]byte, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	root, err := b.path(dir)
	if err != nil {
		return nil, err
	}
	out := map[string][]byte{}
	total := 0
	err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == root && errors.Is(err, fs.ErrNotExist) {
				return fs.SkipAll
			}
			return err
		}
		if !d.Type().IsRegular() {
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if total += len(data); total > maxFilesBytes {
			return fmt.Errorf("more than %d bytes under %s", maxFilesBytes, dir)
		}
		rel, err := filepath.Rel(b.Dir, p)
		if err != nil {
			return err
		}
		out[filepath.ToSlash(rel)] = data
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("files %s: %w", dir, err)
	}
	return out, nil
}
