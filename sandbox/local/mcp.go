package local

import (
	"context"
	"encoding/json"
	"io"

	"github.com/killchain/killchain/sandbox"
)

// MCP opens agent's session with one of the run's MCP servers over an
// in-process pipe; its calls go through the same Box, and the same
// admission limiter, as Call's (the agent loop's MCPDialer).
func (s *Sandbox) MCP(ctx context.Context, server, agent string) (io.ReadWriteCloser, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return s.mcp.Open(ctx, server, agent)
}

// limited is the Sandbox as the MCP servers' Caller: each call through
// its limiter, as Call does.
type limited struct{ s *Sandbox }

func (l limited) CallContext(ctx context.Context, agent, tool string, args json.RawMessage) (sandbox.Result, error) {
	return l.s.Call(ctx, agent, tool, args)
}
