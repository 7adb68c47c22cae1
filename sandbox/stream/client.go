package stream

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/killchain/killchain/internal/tools"
	"github.com/killchain/killchain/sandbox"
	"github.com/killchain/killchain/sandbox/admit"
	"github.com/killchain/killchain/sandbox/wire"
)

// Client sends one sandbox's requests over its Conn: heavy requests first
// wait for a slot of the admission limiter, and each request's Timeout
// starts when it is admitted and sent.
type Client struct {
	Conn    *Conn
	Run     string // for messages
	Limiter *admit.Limiter
	Timeout time.Duration
}

// Request sends req and decodes the result into out. A sandbox that died or
// did not answer within Timeout gives an error that says so.
func (c *Client) Request(ctx context.Context, req wire.Request, out any) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("sandbox %s: %s not sent: %w", c.Run, req.Op, err)
	}
	call := admit.Call{What: string(req.Op), Heavy: Heavy(req), Timeout: c.Timeout}
	if req.Tool != "" {
		call.What += " " + req.Tool
	}
	return c.Limiter.Run(ctx, call, func(cctx context.Context) error {
		return c.exchange(ctx, cctx, req, out)
	})
}

// Heavy reports whether a request keeps a CPU busy for long: speech
// synthesis at prepare, and tools.IsHeavy calls.
func Heavy(req wire.Request) bool {
	switch req.Op {
	case wire.OpPrepare:
		return req.Env != nil && len(req.Env.Speech) > 0
	case wire.OpCall:
		return tools.IsHeavy(req.Tool)
	}
	return false
}

// exchange sends an admitted request and waits for its answer. cctx is ctx
// with the call's deadline; its cause tells a timeout from a cancelled run.
func (c *Client) exchange(ctx, cctx context.Context, req wire.Request, out any) error {
	id, ch, err := c.Conn.Send(req)
	if err != nil {
		return fmt.Errorf("sandbox %s: %s: %w", c.Run, req.Op, err)
	}
	select {
	case resp := <-ch:
		if resp.Error != "" {
			return fmt.Errorf("sandbox %s: %s: %s", c.Run, req.Op, resp.Error)
		}
		if err := json.Unmarshal(resp.Result, out); err != nil {
			return fmt.Errorf("sandbox %s: %s: decode result: %w", c.Run, req.Op, err)
		}
		return nil
	case <-c.Conn.Done():
		// The stream may have delivered the answer just before it ended.
		select {
		case resp := <-ch:
			if resp.Error == "" && json.Unmarshal(resp.Result, out) == nil {
				return nil
			}
		default:
		}
		return fmt.Errorf("sandbox %s: %s: %w", c.Run, req.Op, c.Conn.Ended())
	case <-cctx.Done():
		if ctx.Err() != nil {
			c.Conn.Abandon(id, fmt.Errorf("%w: an earlier request was cancelled", ErrClosed))
			return ctx.Err()
		}
		err := fmt.Errorf("%w (%s after %s)", ErrTimeout, req.Op, c.Timeout)
		c.Conn.Abandon(id, err)
		return sandbox.Failf(sandbox.FaultTimeout, "sandbox %s: %w", c.Run, err)
	}
}

// Call runs a tool in the sandbox (sandbox.Sandbox).
func (c *Client) Call(ctx context.Context, agent, tool string, args json.RawMessage) (sandbox.Result, error) {
	var res sandbox.Result
	err := c.Request(ctx, wire.Request{Op: wire.OpCall, Agent: agent, Tool: tool, Args: args}, &res)
	return res, err
}

// State reads the final state out of the sandbox (sandbox.Sandbox).
func (c *Client) State(ctx context.Context) (sandbox.State, error) {
	var st sandbox.State
	err := c.Request(ctx, wire.Request{Op: wire.OpState}, &st)
	return st, err
}

// Files copies the folder dir (relative to the state folder) out of the
// sandbox (sandbox.FileReader).
func (c *Client) Files(ctx context.Context, dir string) (sandbox.Folder, error) {
	var f sandbox.Folder
	err := c.Request(ctx, wire.Request{Op: wire.OpFiles, Path: dir}, &f)
	if f.Files == nil {
		f.Files = map[string][]byte{}
	}
	return f, err
}

// Probe runs a test-only hardening probe (see cmd/toolbox/probe.go); the
// toolbox answers it only when started with -allow-probe.
func (c *Client) Probe(ctx context.Context, name string, arg int) (wire.ProbeResult, error) {
	var res wire.ProbeResult
	err := c.Request(ctx, wire.Request{Op: wire.OpProbe, Probe: name, Arg: arg}, &res)
	return res, err
}
