package local_test

import (
	"testing"

	"github.com/killchain/killchain/internal/agent"
	"github.com/killchain/killchain/internal/sandboxtest"
	"github.com/killchain/killchain/sandbox/local"
)

var _ agent.MCPDialer = (*local.Sandbox)(nil)

// TestMCPSameCalls runs the shared check: a call over MCP (an in-process
// pipe here) means and fails as it does over the toolbox protocol.
func TestMCPSameCalls(t *testing.T) {
	sandboxtest.MCPSameCalls(t, sandboxtest.OpenerOf(&local.Backend{Root: t.TempDir()}, "mcp"))
}
