// Package docker is the default sandbox backend: every run executes its
// tools inside its own hardened container, started from a snapshot of its
// task's prepared environment.
//
// Lifecycle of a run (Open → Call… → State → Close):
//
//  1. The task's snapshot — the toolbox image plus the task's pristine state
//     under /snapshot, committed once and tagged by a content hash — is
//     reused, or built when missing (snapshot.go).
//  2. A container is created from it through the Docker API (no network,
//     all capabilities dropped, no-new-privileges, read-only root, a tmpfs
//     only at /work, pids/memory/CPU limits, non-root, empty environment)
//     and attached to over stdin/stdout before it starts: one API call each.
//  3. The toolbox inside restores /snapshot into /work and plants what the
//     run's environment adds (files carrying its canary, seeded memory,
//     synthesized speech).
//  4. Tool calls and the final state read travel as JSON lines.
//  5. Close removes the container on a cleanup context of its own.
//
// With a warm pool (Options.WarmPool), step 2 happens ahead of the run: a
// bounded set of containers per study and snapshot stands created, attached
// and started, with nothing of any run in them, and a run takes one that
// nobody else ever gets (pool.go).
//
// A container that dies, is OOM-killed or stops answering makes Call and
// State return an error that says why. GC removes what crashed processes
// left behind.
package docker

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"

	cerrdefs "github.com/containerd/errdefs"
	"github.com/hashicorp/go-hclog"
	"github.com/moby/moby/client"
	"golang.org/x/sync/singleflight"

	"github.com/killchain/killchain/images"
	"github.com/killchain/killchain/sandbox"
	"github.com/killchain/killchain/sandbox/admit"
	"github.com/killchain/killchain/sandbox/stream"
	"github.com/killchain/killchain/sandbox/warm"
)

// Backend opens Docker sandboxes.
type Backend struct {
	opts    Options
	cli     *client.Client
	ownCli  bool
	log     hclog.Logger
	toolbox images.Built
	limit   *admit.Limiter // heavy requests of every sandbox

	// snapBuilds builds each task's snapshot once at a time.
	snapBuilds singleflight.Group

	mu    sync.Mutex
	snaps map[string]*snapshot // built, by task and base image
	bases map[string]images.Built
	live  sandbox.Live[*Sandbox]
	// unremoved are the containers whose removal did not finish within
	// CleanupTimeout, by id, with their names: Close asks again.
	unremoved map[string]string

	pool *warm.Pool[*Sandbox] // nil without a warm pool
}

var _ sandbox.Backend = (*Backend)(nil)

// ErrUnreachable marks a Docker daemon that does not answer (or a
// DOCKER_HOST that cannot be used): only this failure is the daemon's;
// an image that cannot be built or a runtime that is missing is not.
var ErrUnreachable = errors.New("docker is not reachable")

// New connects to Docker, builds the toolbox image when missing and returns
// a backend. Zero fields of opts take their defaults.
func New(ctx context.Context, opts Options) (*Backend, error) {
	opts = opts.withDefaults()
	if errs := opts.Validate(); len(errs) > 0 {
		return nil, fmt.Errorf("docker sandbox: %w", errors.Join(errs...))
	}
	b := &Backend{
		opts:  opts,
		cli:   opts.Client,
		log:   opts.Logger.Named("docker"),
		snaps: map[string]*snapshot{},
		bases: map[string]images.Built{},
		limit: opts.Limiter,
	}
	if b.limit == nil {
		b.limit = admit.New(opts.HeavyConcurrency, b.log)
	}
	if opts.WarmPool > 0 {
		b.pool = warm.New(opts.WarmPool, func(ctx context.Context, s *Sandbox) error { return s.Close(ctx) }, b.log.Named("pool"))
	}
	if b.cli == nil {
		cli, err := images.NewClient()
		if err != nil {
			return nil, fmt.Errorf("docker sandbox: %w: %w", ErrUnreachable, err)
		}
		b.cli, b.ownCli = cli, true
	}
	if _, err := b.cli.Ping(ctx, client.PingOptions{NegotiateAPIVersion: true}); err != nil {
		b.closeClient()
		return nil, fmt.Errorf("docker sandbox: %w: %w", ErrUnreachable, err)
	}
	if opts.Runtime != "" {
		info, err := b.cli.Info(ctx, client.InfoOptions{})
		if err != nil {
			b.closeClient()
			return nil, fmt.Errorf("docker sandbox: info: %w", err)
		}
		if _, ok := info.Info.Runtimes[opts.Runtime]; !ok {
			b.closeClient()
			return nil, fmt.Errorf("docker sandbox: runtime %q is not installed in the docker daemon", opts.Runtime)
		}
	}
	tb, err := images.Ensure(ctx, b.cli, images.Toolbox, opts.Progress)
	if err != nil {
		b.closeClient()
		return nil, fmt.Errorf("docker sandbox: %w", err)
	}
	b.toolbox = tb
	b.bases[images.Toolbox] = tb
	b.log.Debug("backend ready", "toolbox", tb.Ref, "memory_mb", opts.MemoryMB, "cpus", opts.CPUs, "heavy_slots", b.limit.Slots(), "pids_limit", opts.PidsLimit, "runtime", opts.Runtime)
	return b, nil
}

// Name returns "docker".
func (b *Backend) Name() string { return "docker" }

// Client returns the backend's Docker client.
func (b *Backend) Client() *client.Client { return b.cli }

// HeavySlots is how many CPU-heavy requests the backend runs at once.
func (b *Backend) HeavySlots() int { return b.limit.Slots() }

// Toolbox returns the toolbox image the backend runs.
func (b *Backend) Toolbox() images.Built { return b.toolbox }

// Open starts a run's container from its task's snapshot and plants the
// run's environment.
func (b *Backend) Open(ctx context.Context, env sandbox.Env) (sandbox.Sandbox, error) {
	return b.open(ctx, env)
}

func (b *Backend) open(ctx context.Context, env sandbox.Env) (*Sandbox, error) {
	p, err := b.Prepare(ctx, env)
	if err != nil {
		return nil, err
	}
	var s *Sandbox
	if b.pool != nil {
		s, err = b.takeWarm(ctx, env, p)
	} else {
		log := b.log.With("run", env.Run, "task", env.Task)
		s, err = b.start(ctx, p.Image, map[string]string{LabelStudy: env.Study, LabelRun: env.Run, LabelTask: env.Task}, p.Command, env.Run, log)
	}
	if err != nil {
		return nil, fmt.Errorf("docker sandbox %s: %w", env.Run, err)
	}
	var ok bool
	if err := s.Request(ctx, p.Request(), &ok); err != nil {
		s.Close(ctx)
		return nil, fmt.Errorf("docker sandbox %s: prepare: %w", env.Run, err)
	}
	return s, nil
}

// Prepare finds the image a run needs (the shell or audio image where the
// task needs one), builds its task's snapshot once, and returns what to
// start and plant.
func (b *Backend) Prepare(ctx context.Context, env sandbox.Env) (warm.Prepared, error) {
	if env.Run == "" || env.Task == "" {
		return warm.Prepared{}, errors.New("docker sandbox: env needs a run and a task")
	}
	base := images.Toolbox
	if len(env.Speech) > 0 {
		if b.opts.Audio == nil {
			return warm.Prepared{}, fmt.Errorf("docker sandbox %s: task %s speaks, but no audio image is configured", env.Run, env.Task)
		}
		base = b.opts.Audio.Image
	}
	if env.Shell {
		if b.opts.ShellImage == "" {
			return warm.Prepared{}, fmt.Errorf("docker sandbox %s: task %s runs shell commands, but no shell image is configured", env.Run, env.Task)
		}
		if len(env.Speech) > 0 && base != b.opts.ShellImage {
			return warm.Prepared{}, fmt.Errorf("docker sandbox %s: task %s needs speech and a shell in one image, but they are %s and %s", env.Run, env.Task, base, b.opts.ShellImage)
		}
		base = b.opts.ShellImage
	}
	snap, err := b.snapshot(ctx, env.Task, base)
	if err != nil {
		return warm.Prepared{}, fmt.Errorf("docker sandbox %s: %w", env.Run, err)
	}
	plant, remove := snap.diff(env)
	return warm.Prepared{Image: snap.ref, ImageID: snap.id, Base: base, Command: b.command(base), Plant: plant, Remove: remove}, nil
}

// command is the toolbox command line for containers of base.
func (b *Backend) command(base string) []string {
	cmd := []string{"serve", "-state", warm.StateDir, "-pristine", warm.PristineDir}
	if a := b.opts.Audio; a != nil && base == a.Image {
		if a.Synthesize != "" {
			cmd = append(cmd, "-synth", a.Synthesize)
		}
		if a.Transcribe != "" {
			cmd = append(cmd, "-asr", a.Transcribe)
		}
	}
	if b.opts.allowProbe {
		cmd = append(cmd, "-allow-probe")
	}
	return append([]string{warm.ToolboxPath}, cmd...)
}

// start creates, attaches to and starts one hardened container, with one
// Docker API call each (and nothing else on the way: every call here is on
// a run's critical path unless the warm pool made it ahead).
func (b *Backend) start(ctx context.Context, image string, labels map[string]string, cmd []string, run string, log hclog.Logger) (*Sandbox, error) {
	name := containerName(run)
	cfg, host := b.ContainerConfig(image, cmd, labels)
	created, err := b.cli.ContainerCreate(ctx, client.ContainerCreateOptions{Name: name, Config: cfg, HostConfig: host})
	if err != nil {
		b.removeByName(ctx, name)
		return nil, fmt.Errorf("create container: %w", err)
	}
	id := created.ID
	s := &Sandbox{b: b, id: id, name: name, log: log.With("container", shortID(id))}
	hj, err := b.cli.ContainerAttach(ctx, id, client.ContainerAttachOptions{Stream: true, Stdin: true, Stdout: true, Stderr: true})
	if err != nil {
		b.remove(ctx, id)
		return nil, fmt.Errorf("attach: %w", err)
	}
	conn := newConn(hj.HijackedResponse, func(streamErr error, stderr string) error {
		if s.closing.Load() {
			return ErrClosed
		}
		return b.diagnose(id, streamErr, stderr)
	})
	s.Client = stream.Client{Conn: conn, Run: run, Limiter: b.limit, Timeout: b.opts.CallTimeout}
	s.hj = &hj.HijackedResponse
	b.track(s)
	if _, err := b.cli.ContainerStart(ctx, id, client.ContainerStartOptions{}); err != nil {
		s.Close(ctx)
		return nil, fmt.Errorf("start container: %w", err)
	}
	s.started.Store(true)
	s.log.Debug("sandbox started")
	return s, nil
}

func containerName(run string) string {
	var rnd [4]byte
	rand.Read(rnd[:])
	clean := strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '-', r == '_', r == '.':
			return r
		}
		return '-'
	}, run)
	if len(clean) > 60 {
		clean = clean[:60]
	}
	return "killchain-" + clean + "-" + hex.EncodeToString(rnd[:])
}

func shortID(id string) string {
	id = strings.TrimPrefix(id, "sha256:")
	if len(id) > 12 {
		return id[:12]
	}
	return id
}

// cleanupCtx is a context apart from ctx (which may be cancelled) bounded
// by CleanupTimeout.
func (b *Backend) cleanupCtx(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.WithoutCancel(ctx), b.opts.CleanupTimeout)
}

// remove force-removes a container and its anonymous volumes.
// It asks again until the daemon says the container is gone (removeGone),
// bounded by CleanupTimeout.
func (b *Backend) remove(ctx context.Context, id string) error {
	cctx, cancel := b.cleanupCtx(ctx)
	defer cancel()
	return removeGone(cctx, b.cli, id)
}

// removeByName removes a container whose creation may have reached the
// daemon even though the call failed (e.g. cancelled mid-way): the daemon
// may finish creating it after the client gave up, so a container not found
// yet is looked for again for a few seconds.
func (b *Backend) removeByName(ctx context.Context, name string) {
	cctx, cancel := b.cleanupCtx(ctx)
	defer cancel()
	for wait := 50 * time.Millisecond; ; wait *= 2 {
		_, err := b.cli.ContainerRemove(cctx, name, client.ContainerRemoveOptions{Force: true, RemoveVolumes: true})
		switch {
		case err == nil:
			return
		case !cerrdefs.IsNotFound(err):
			b.log.Warn("cleanup failed", "container", name, "error", err)
			return
		case wait > 2*time.Second:
			return
		}
		select {
		case <-time.After(wait):
		case <-cctx.Done():
			return
		}
	}
}

func (b *Backend) track(s *Sandbox) { b.live.Add(s) }

func (b *Backend) forget(s *Sandbox) { b.live.Remove(s) }

// Close removes every sandbox still open and releases the client when the
// backend created it. Snapshot images are kept for later studies.
// A container whose removal a sandbox's Close could not finish is asked
// again here; Close's error names each that is still there, and why.
func (b *Backend) Close(ctx context.Context) error {
	perr := b.pool.Close(ctx)
	err := b.live.CloseAll(ctx)
	lerr := b.removeLeftovers(ctx)
	b.closeClient()
	return errors.Join(perr, err, lerr)
}

// leftover records a container Close could not remove.
func (b *Backend) leftover(id, name string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.unremoved == nil {
		b.unremoved = map[string]string{}
	}
	b.unremoved[id] = name
}

// removeLeftovers asks again for each container a sandbox's Close could
// not remove, and names those still there.
func (b *Backend) removeLeftovers(ctx context.Context) error {
	b.mu.Lock()
	left := b.unremoved
	b.unremoved = nil
	b.mu.Unlock()
	var errs []error
	for _, id := range slices.Sorted(maps.Keys(left)) {
		cctx, cancel := b.cleanupCtx(ctx)
		err := removeGone(cctx, b.cli, id)
		cancel()
		if err != nil {
			errs = append(errs, fmt.Errorf("container %s is left: %w (killchain sandbox gc removes it)", left[id], err))
		}
	}
	return errors.Join(errs...)
}

func (b *Backend) closeClient() {
	if b.ownCli && b.cli != nil {
		b.cli.Close()
	}
}
