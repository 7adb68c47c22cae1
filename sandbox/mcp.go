package sandbox

// MCPServer is one Model Context Protocol server a run's sandbox serves:
// the toolbox offers the named tools (built-in or the task's own) over it,
// with the same effect log behind them as the toolbox protocol. Trusted is
// the task's word on who runs the server: false for a third party's server,
// whose descriptions and results are content from outside (see docs/mcp.md).
// It is the one shape of a server: a task's server block, the
// environment's servers, and the servers an agent takes its tools from.
type MCPServer struct {
	Name    string   `json:"name"`
	Tools   []string `json:"tools"`
	Trusted bool     `json:"trusted,omitempty"`
}

// MCPServer returns the environment's MCP server of that name.
func (e Env) MCPServer(name string) (MCPServer, bool) {
	for _, s := range e.MCP {
		if s.Name == name {
			return s, true
		}
	}
	return MCPServer{}, false
}

// Keys of a tools/call result's _meta through which the toolbox's MCP
// servers hand back what the toolbox protocol's Result carries beside the
// text: the Effect the call carried out and run_shell's exit status.
const (
	MCPMetaEffect   = "killchain/effect"
	MCPMetaExitCode = "killchain/exit_code"
)
