package runner

import (
	"github.com/killchain/killchain/internal/agent"
	"github.com/killchain/killchain/sandbox"
	"github.com/killchain/killchain/tasks"
)

// mcpWire points an agent that takes its tools from MCP at its role's
// servers in the run's sandbox. A backend that serves no MCP leaves the
// dialer unset, and the agent's run is then a sandbox error.
func mcpWire(cfg *agent.Config, task *tasks.Task, role tasks.Role, sb sandbox.Sandbox) {
	cfg.Servers = append(cfg.Servers, task.RoleServers(role)...)
	if d, ok := sb.(agent.MCPDialer); ok && len(cfg.Servers) > 0 {
		cfg.MCP = d
	}
}
