// Package local runs a run's tools in-process over a fresh temporary folder.
// It is the backend for machines without Docker: the tool code is the same
// toolbox the Docker backend runs inside its containers, but nothing isolates
// the run from the host, and audio is available only when the caller gives
// it a Synthesizer and a Transcriber. run_shell, which would run an agent's
// commands on the host, is available only when the caller allows it
// (AllowHostShell).
package local

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"syscall"

	"github.com/killchain/killchain/images"
	"github.com/killchain/killchain/internal/tools"
	"github.com/killchain/killchain/sandbox"
	"github.com/killchain/killchain/sandbox/admit"
	"github.com/killchain/killchain/sandbox/mcpbox"
	"github.com/killchain/killchain/sandbox/toolbox"
)

// Backend opens local sandboxes under Root. Without a Root, the sandboxes
// of tasks without a shell are made in memory (/dev/shm) where it is usable
// and TMPDIR is unset, the others in the system temp folder (root.go).
type Backend struct {
	Root string
	// Synthesizer and Transcriber, when both are set, give the backend the
	// audio capability: speech clips are synthesized at Open and
	// transcribe_audio is available.
	Synthesizer Synthesizer
	Transcriber toolbox.Transcriber
	// Limiter admits the CPU-heavy work (speech synthesis at Open,
	// tools.IsHeavy calls) of the backend's sandboxes; nil: a limiter of
	// one slot per CPU shared by every local backend of the process.
	Limiter *admit.Limiter
	// AllowHostShell gives the backend the shell capability: run_shell
	// then runs an agent's commands on this host, as HostShell says (as
	// nobody in a pid namespace of their own when the process is root),
	// with an empty environment, and the process makes itself
	// non-dumpable first, so they cannot read its environment (the API
	// keys) from /proc. Without it a task that needs a shell is refused.
	AllowHostShell bool
}

// HostShell says how run_shell commands run on this host when allowed:
// which user, and whether a pid namespace holds them to their call; or why
// they cannot run here at all (root without a pid namespace).
func HostShell() (string, error) {
	_, how, err := hostConfine()
	return how, err
}

// hostConfine is how this host holds run_shell commands: through the
// embedded toolbox binary, which gives each command a private /tmp,
// /var/tmp and /dev/shm (toolbox.HostConfine).
func hostConfine() (toolbox.Confine, string, error) {
	helper, err := images.ToolboxFile()
	if err != nil {
		return toolbox.Confine{}, "", fmt.Errorf("run_shell on this host runs each command through the toolbox binary: %w", err)
	}
	return toolbox.HostConfine(helper)
}

// sharedLimiter is the limiter of local backends without their own.
var sharedLimiter = sync.OnceValue(func() *admit.Limiter { return admit.New(0, nil) })

// limiter returns the backend's admission limiter.
func (b *Backend) limiter() *admit.Limiter {
	if b.Limiter != nil {
		return b.Limiter
	}
	return sharedLimiter()
}

// Synthesizer speaks text into a WAV file (audio.Synthesizer is one).
type Synthesizer interface {
	Synthesize(ctx context.Context, text, wavPath string) error
}

var (
	_ sandbox.Backend    = (*Backend)(nil)
	_ sandbox.Capable    = (*Backend)(nil)
	_ sandbox.FileReader = (*Sandbox)(nil)
)

// Name returns "local".
func (b *Backend) Name() string { return "local" }

// Capabilities returns audio when the backend has a Synthesizer and a
// Transcriber, and shell when it may run commands on this host
// (AllowHostShell) and the host has toolbox.DefaultShell. Commands run in
// the run's folder with no isolation from the host beyond HostShell's:
// another user where the process is root, a pid namespace where the kernel
// allows one, an empty environment, and bounded time and output.
func (b *Backend) Capabilities() []sandbox.Capability {
	var out []sandbox.Capability
	if b.Synthesizer != nil && b.Transcriber != nil {
		out = append(out, sandbox.Audio)
	}
	if _, err := os.Stat(toolbox.DefaultShell); err == nil && b.AllowHostShell {
		if _, _, err := hostConfine(); err == nil {
			out = append(out, sandbox.Shell)
		}
	}
	return out
}

// Open prepares a fresh folder for one run. An environment with speech
// clips is refused (sandbox.ErrUnavailable) by a backend without audio, and
// one with a shell by a backend that may not run it: the run is then an
// error, never an outcome.
func (b *Backend) Open(ctx context.Context, env sandbox.Env) (sandbox.Sandbox, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if len(env.Speech) > 0 && sandbox.Missing([]sandbox.Capability{sandbox.Audio}, b.Capabilities()) != nil {
		return nil, fmt.Errorf("local sandbox: task %s needs %s: %w", env.Task, sandbox.Audio.Describe(), sandbox.ErrUnavailable)
	}
	if env.Shell && sandbox.Missing([]sandbox.Capability{sandbox.Shell}, b.Capabilities()) != nil {
		return nil, fmt.Errorf("local sandbox: task %s runs an agent's shell commands, which this host runs only when allowed: %w", env.Task, sandbox.ErrUnavailable)
	}
	var confine toolbox.Confine
	if env.Shell {
		// The commands run as this process's uid where it is not root:
		// its /proc entries (environ: the API keys) must be closed to them.
		if err := toolbox.NonDumpable(); err != nil {
			return nil, fmt.Errorf("local sandbox: %w", err)
		}
		var err error
		if confine, _, err = hostConfine(); err != nil {
			return nil, fmt.Errorf("local sandbox: %w", err)
		}
	}
	top, err := os.MkdirTemp(b.root(env.Shell), "killchain-"+env.Run+"-")
	if err != nil {
		return nil, fmt.Errorf("local sandbox: %w", err)
	}
	dir := top
	if confine.Credential != nil {
		if dir, err = hidden(top, confine.Credential.Uid); err != nil {
			os.RemoveAll(top)
			return nil, fmt.Errorf("local sandbox: %w", err)
		}
	}
	box := toolbox.New(dir, b.Transcriber)
	box.Confine = confine
	if err := box.Prepare(env); err != nil {
		os.RemoveAll(top)
		return nil, fmt.Errorf("local sandbox: %w", err)
	}
	for _, sp := range env.Speech {
		if err := b.speak(ctx, dir, sp); err != nil {
			os.RemoveAll(top)
			return nil, fmt.Errorf("local sandbox: %w", err)
		}
	}
	sb := &Sandbox{box: box, dir: top, limit: b.limiter()}
	sb.mcp = mcpbox.New(limited{sb}, env)
	return sb, nil
}

// speak synthesizes one clip into the run's folder.
func (b *Backend) speak(ctx context.Context, dir string, sp sandbox.Speech) error {
	if !filepath.IsLocal(sp.Path) {
		return fmt.Errorf("speech %q: path outside the sandbox", sp.Path)
	}
	out := filepath.Join(dir, sp.Path)
	if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
		return fmt.Errorf("speech %s: %w", sp.Path, err)
	}
	err := b.limiter().Run(ctx, admit.Call{What: "synthesize " + sp.Path, Heavy: true}, func(ctx context.Context) error {
		return b.Synthesizer.Synthesize(ctx, sp.Text, out)
	})
	if err != nil {
		return fmt.Errorf("speech %s: %w", sp.Path, err)
	}
	return nil
}

// Sandbox is one run's folder.
type Sandbox struct {
	box    *toolbox.Box
	dir    string
	limit  *admit.Limiter
	mcp    *mcpbox.Servers
	closed sync.Once
}

// Call runs a tool in-process; a heavy tool first waits for a slot of the
// backend's limiter.
func (s *Sandbox) Call(ctx context.Context, agent, tool string, args json.RawMessage) (sandbox.Result, error) {
	if err := ctx.Err(); err != nil {
		return sandbox.Result{}, err
	}
	var res sandbox.Result
	err := s.limit.Run(ctx, admit.Call{What: "call " + tool, Heavy: tools.IsHeavy(tool)}, func(ctx context.Context) error {
		var err error
		res, err = s.box.CallContext(ctx, agent, tool, args)
		return err
	})
	return res, err
}

// State reads the final state.
func (s *Sandbox) State(ctx context.Context) (sandbox.State, error) {
	return s.box.State()
}

// Files copies the folder dir (relative to the run's folder) out; see
// sandbox.FileReader.
func (s *Sandbox) Files(ctx context.Context, dir string) (sandbox.Folder, error) {
	if err := ctx.Err(); err != nil {
		return sandbox.Folder{}, err
	}
	return s.box.Files(dir)
}

// hidden makes the folder a run's tools work in when its commands run as
// another user, uid: top/<128 random bits>, with top passable but not
// listable (0711). Every run's commands run as that same user (nobody), so
// another run's command must not find this run's workspace, whose name it
// cannot list nor guess. The user must be able to pass through every
// folder above top.
func hidden(top string, uid uint32) (string, error) {
	if err := reachable(top, uid); err != nil {
		return "", err
	}
	var secret [16]byte
	rand.Read(secret[:])
	dir := filepath.Join(top, hex.EncodeToString(secret[:]))
	if err := os.Mkdir(dir, 0o700); err != nil {
		return "", err
	}
	if err := os.Chmod(top, 0o711); err != nil {
		return "", err
	}
	return dir, nil
}

// reachable checks that the user uid, whom the run's commands run as, may
// pass through every folder above the run's folder dir to reach its
// workspace (the run's folder itself the toolbox opens to it).
func reachable(dir string, uid uint32) error {
	for p := filepath.Dir(dir); ; p = filepath.Dir(p) {
		fi, err := os.Stat(p)
		if err != nil {
			return err
		}
		st, ok := fi.Sys().(*syscall.Stat_t)
		if fi.Mode().Perm()&0o001 == 0 && (!ok || st.Uid != uid) {
			return fmt.Errorf("run_shell runs as uid %d, who may not pass through %s (mode %v): put the run folders where every user may (TMPDIR)", uid, p, fi.Mode().Perm())
		}
		if p == filepath.Dir(p) {
			return nil
		}
	}
}

// Close removes the folder.
func (s *Sandbox) Close(ctx context.Context) error {
	var err error
	s.closed.Do(func() { err = os.RemoveAll(s.dir) })
	return err
}
