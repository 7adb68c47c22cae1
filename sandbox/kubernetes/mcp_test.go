package kubernetes

import (
	"context"
	"testing"

	"github.com/killchain/killchain/internal/agent"
	"github.com/killchain/killchain/internal/sandboxtest"
	"github.com/killchain/killchain/sandbox/docker"
	"github.com/killchain/killchain/sandbox/docker/dockertest"
)

var _ agent.MCPDialer = (*Sandbox)(nil)

// TestMCP runs the shared check in pods: every MCP session travels over
// the pod's exec stream beside the toolbox protocol, and means what it
// means over the toolbox protocol.
func TestMCP(t *testing.T) {
	dopts := docker.DefaultOptions()
	dopts.Client = dockertest.Require(t)
	dopts.Logger = testLogger()
	d, err := docker.New(context.Background(), dopts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close(context.Background()) })
	b := newBackend(t, Options{Docker: d})
	sandboxtest.MCPSameCalls(t, sandboxtest.OpenerOf(b, uniqueStudy(t, b)))
}
