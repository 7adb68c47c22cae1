package docker

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/moby/moby/api/types/container"
	"github.com/moby/moby/client"

	"github.com/killchain/killchain/sandbox"
	"github.com/killchain/killchain/sandbox/docker/wire"
	"github.com/killchain/killchain/sandbox/stream"
)

// Errors a sandbox reports when it fails; the run is then a sandbox error,
// never an outcome. They come wrapped with the container and the detail.
var (
	ErrOOMKilled = errors.New("sandbox container was killed by the out-of-memory killer")
	ErrExited    = errors.New("sandbox container exited")
	ErrTimeout   = stream.ErrTimeout
	ErrClosed    = stream.ErrClosed
)

// Sandbox is one run's container, attached to over its stdin/stdout.
type Sandbox struct {
	b    *Backend
	id   string // container ID
	name string
	run  string
	log  hclog.Logger
	conn *stream.Conn

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

// Call runs a tool inside the container.
func (s *Sandbox) Call(ctx context.Context, agent, tool string, args json.RawMessage) (sandbox.Result, error) {
	var res sandbox.Result
	err := s.request(ctx, wire.Request{Op: wire.OpCall, Agent: agent, Tool: tool, Args: args}, &res)
	return res, err
}

// State reads the final state out of the container.
func (s *Sandbox) State(ctx context.Context) (sandbox.State, error) {
	var st sandbox.State
	err := s.request(ctx, wire.Request{Op: wire.OpState}, &st)
	return st, err
}

// Files reads the regular files under dir (relative to the state folder)
// out of the container; see sandbox.FileReader.
func (s *Sandbox) Files(ctx context.Context, dir string) (map[string][]byte, error) {
	var files map[string][]byte
	err := s.request(ctx, wire.Request{Op: wire.OpFiles, Path: dir}, &files)
	return files, err
}

// probe runs a test-only hardening probe (see cmd/toolbox/probe.go).
func (s *Sandbox) probe(ctx context.Context, name string, arg int) (wire.ProbeResult, error) {
	var res wire.ProbeResult
	err := s.request(ctx, wire.Request{Op: wire.OpProbe, Probe: name, Arg: arg}, &res)
	return res, err
}

// request sends req and decodes the result into out (see stream.Client):
// heavy requests wait for a slot of the backend's admission limiter, and
// CallTimeout starts when the request is admitted and sent.
func (s *Sandbox) request(ctx context.Context, req wire.Request, out any) error {
	c := stream.Client{Conn: s.conn, Run: s.run, Limiter: s.b.limit, Timeout: s.b.opts.CallTimeout}
	return c.Request(ctx, req, out)
}

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
	switch {
	case st == nil:
	case st.OOMKilled:
		return sandbox.Failf(sandbox.FaultOOMKilled, "%w (memory limit %d MiB, exit code %d)%s", ErrOOMKilled, b.opts.MemoryMB, st.ExitCode, detail)
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
		s.conn.Close()
		s.closeErr = s.b.remove(ctx, s.id)
		s.b.forget(s)
		s.log.Debug("sandbox removed", "error", s.closeErr)
	})
	return s.closeErr
}
