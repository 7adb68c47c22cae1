package docker

import (
	"context"
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/killchain/killchain/internal/sandboxtest"
	"github.com/killchain/killchain/sandbox"
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
		rwc, err := sb.(sandbox.MCPDialer).MCP(t.Context(), "company", "agent")
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

var _ sandbox.MCPDialer = (*Sandbox)(nil)
