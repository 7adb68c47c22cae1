package docker

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/killchain/killchain/internal/agent"
	"github.com/killchain/killchain/internal/sandboxtest"
)

// TestMCP runs the shared check in hardened containers, every MCP session
// over the container's attach stream beside the toolbox protocol; and a
// container that dies ends its MCP streams with the reason.
func TestMCP(t *testing.T) {
	b := newBackend(t, Options{})
	open := sandboxtest.OpenerOf(b, uniqueStudy(t))
	t.Run("same_calls", func(t *testing.T) { sandboxtest.MCPSameCalls(t, open) })
	t.Run("container_dies", func(t *testing.T) {
		sb := open(t, sandboxtest.MCPEnv("mcp-dies"))
		rwc, err := sb.(agent.MCPDialer).MCP(t.Context(), "company", "agent")
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if _, err := b.cli.ContainerKill(ctx, sb.(*Sandbox).ID(), containerKillOptions()); err != nil {
			t.Fatal(err)
		}
		done := make(chan error, 1)
		go func() {
			_, err := io.ReadAll(rwc)
			done <- err
		}()
		select {
		case err := <-done:
			if err == nil || errors.Is(err, io.EOF) || strings.TrimSpace(err.Error()) == "" {
				t.Fatalf("read after the container died: %v, want the stream's error", err)
			}
			t.Logf("the MCP stream ended with: %v", err)
		case <-ctx.Done():
			t.Fatal("the MCP stream did not end when its container died")
		}
	})
}

var _ agent.MCPDialer = (*Sandbox)(nil)

// BenchmarkMCPCall times one read call's round trip in one container over
// each protocol: the toolbox protocol's call op, and tools/call of an SDK
// client whose messages travel as frames on the same attach stream.
// go test -run '^$' -bench MCPCall ./sandbox/docker/
func BenchmarkMCPCall(b *testing.B) {
	cli := requireDockerB(b)
	ctx := context.Background()
	be, err := New(ctx, Options{Client: cli})
	if err != nil {
		b.Fatal(err)
	}
	defer be.Close(ctx)
	env := sandboxtest.MCPEnv("mcp-bench")
	env.Study = fmt.Sprintf("bench-mcp-%d", time.Now().UnixNano())
	sb, err := be.Open(ctx, env)
	if err != nil {
		b.Fatal(err)
	}
	defer sb.Close(ctx)
	args := json.RawMessage(`{"query":"budget"}`)
	b.Run("toolbox", func(b *testing.B) {
		for b.Loop() {
			if _, err := sb.Call(ctx, "agent", "search", args); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("mcp", func(b *testing.B) {
		rwc, err := sb.(agent.MCPDialer).MCP(ctx, "company", "agent")
		if err != nil {
			b.Fatal(err)
		}
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "bench"}, nil).Connect(ctx, &mcp.IOTransport{Reader: rwc, Writer: rwc}, nil)
		if err != nil {
			b.Fatal(err)
		}
		defer cs.Close()
		for b.Loop() {
			if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "search", Arguments: args}); err != nil {
				b.Fatal(err)
			}
		}
	})
}
