package docker

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/moby/moby/api/types/container"
	"github.com/moby/moby/client"

	"github.com/killchain/killchain/sandbox"
	"github.com/killchain/killchain/sandbox/stream"
	"github.com/killchain/killchain/sandbox/warm"
)

// Errors a sandbox reports when it fails; the run is then a sandbox error,
// never an outcome. They come wrapped with the container and the detail.
var (
	ErrOOMKilled = warm.ErrOOMKilled
	ErrExited    = warm.ErrExited
	ErrTimeout   = stream.ErrTimeout
	ErrClosed    = stream.ErrClosed
)

// Sandbox is one run's container, attached to over its stdin/stdout. Its
// tool calls, state and file reads are the stream client's (Call, State,
// Files; Probe in tests).
type Sandbox struct {
	stream.Client
	b    *Backend
	hj   *client.HijackedResponse // the attach connection
	id   string                   // container ID
	name string
	log  hclog.Logger

	started   atomic.Bool // the container was started
	closing   atomic.Bool
	closeOnce sync.Once
	closeErr  error
}

var (
	_ sandbox.Sandbox    = (*Sandbox)(nil)
	_ sandbox.FileReader = (*Sandbox)(nil)
)

// ID returns the container's ID.
func (s *Sandbox) ID() string { return s.id }

// diagnose explains why the stream of container id ended: OOM kill, exit
// code and stderr, or a lost connection.
func (b *Backend) diagnose(id string, streamErr error, stderr string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	// Wait briefly for the daemon to record the exit.
	wctx, wcancel := context.WithTimeout(ctx, 3*time.Second)
	wait := b.cli.ContainerWait(wctx, id, client.ContainerWaitOptions{Condition: container.WaitConditionNotRunning})
	select {
	case <-wait.Result:
	case <-wait.Error:
	case <-wctx.Done():
	}
	wcancel()
	detail := ""
	if stderr != "" {
		detail = ": " + stderr
	}
	ins, err := b.cli.ContainerInspect(ctx, id, client.ContainerInspectOptions{})
	if err != nil {
		return sandbox.Failf(sandbox.FaultExited, "%w: connection lost and container gone (%v)%s", ErrExited, err, detail)
	}
	st := ins.Container.State
	oom, inferred := st != nil && st.OOMKilled, ""
	if oomPending(st, b.opts.MemoryMB) {
		switch ev, err := b.exitEvents(ctx, id, st); {
		case err != nil:
			b.log.Warn("cannot tell an OOM kill from another SIGKILL", "container", id, "error", err)
		case ev.oom:
			oom = true
		case ev.inferOOM():
			oom, inferred = true, "; inferred: killed by SIGKILL, not through the Docker API, and the daemon recorded no OOM kill"
		}
	}
	switch {
	case st == nil:
	case oom:
		return sandbox.Failf(sandbox.FaultOOMKilled, "%w (memory limit %d MiB, exit code %d%s)%s", ErrOOMKilled, b.opts.MemoryMB, st.ExitCode, inferred, detail)
	case !st.Running:
		return sandbox.Failf(sandbox.FaultExited, "%w with code %d (%s)%s", ErrExited, st.ExitCode, st.Status, detail)
	}
	if streamErr != nil {
		return sandbox.Failf(sandbox.FaultExited, "%w: connection lost: %v%s", ErrExited, streamErr, detail)
	}
	return fmt.Errorf("%w: connection closed%s", ErrClosed, detail)
}

// Close removes the container. It runs on a context apart from ctx (which
// may already be cancelled, e.g. on Ctrl-C) bounded by CleanupTimeout, and
// is safe to call twice.
func (s *Sandbox) Close(ctx context.Context) error {
	s.closeOnce.Do(func() {
		s.closing.Store(true)
		s.endStdin(ctx)
		s.Conn.Close()
		s.closeErr = s.b.remove(ctx, s.id)
		if s.closeErr != nil {
			s.b.leftover(s.id, s.name)
		}
		s.b.forget(s)
		s.log.Debug("sandbox removed", "error", s.closeErr)
	})
	return s.closeErr
}

// exitWait bounds how long Close waits for the toolbox to exit on its own
// once its stdin has ended (a call still in progress, such as a shell
// command, holds it); then the container is killed.
const exitWait = time.Second

// endStdin ends the toolbox's stdin and waits up to exitWait (or until ctx
// ends) for it to exit, which ends the attach stream: the toolbox exits
// when its stdin ends, so removing the container then kills nothing, which
// saves the daemon a kill through the runtime on every run. A container
// never started, or a connection that cannot be half-closed, is not waited
// for.
func (s *Sandbox) endStdin(ctx context.Context) {
	if s.hj == nil || !s.started.Load() {
		return
	}
	cw, ok := s.hj.Conn.(client.CloseWriter)
	if !ok || cw.CloseWrite() != nil {
		return
	}
	t := time.NewTimer(exitWait)
	defer t.Stop()
	select {
	case <-s.Conn.Done():
	case <-t.C:
	case <-ctx.Done():
	}
}
