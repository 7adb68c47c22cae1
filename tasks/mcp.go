package tasks

import (
	"slices"

	"github.com/hashicorp/hcl/v2"

	"github.com/killchain/killchain/internal/hcldiag"
	"github.com/killchain/killchain/sandbox"
)

// Where a role takes its tools from (tools_from).
const (
	FromToolbox = "toolbox"
	FromMCP     = "mcp"
)

// Surfaces of the MCP channel (docs/mcp.md): a tool description is
// SurfaceToolDescription wherever it is served.
const (
	// SurfaceRugPull is a tool's rug-pull description: served once the
	// agent has used the tool's server, announced with list_changed.
	SurfaceRugPull = "rug_pull"
	// SurfaceShadowing is the description of a tool that shadows another
	// server's tool: it tells the model how to use that one.
	SurfaceShadowing = "shadowing"
	// SurfaceMCPResult is a result an MCP server's tool returns.
	SurfaceMCPResult = "mcp_result"
)

type rawServer struct {
	Tools   []string `hcl:"tools"`
	Trusted *bool    `hcl:"trusted,optional"`
}

// UsesMCP reports whether a role takes its tools from MCP: its own
// tools_from, else the task's.
func (t *Task) UsesMCP(r Role) bool {
	if r.ToolsFrom != "" {
		return r.ToolsFrom == FromMCP
	}
	return t.ToolsFrom == FromMCP
}

// MCP reports whether some role of the task takes its tools from MCP.
func (t *Task) MCP() bool {
	for _, r := range t.Roles {
		if t.UsesMCP(r) {
			return true
		}
	}
	return false
}

// RoleServers are the servers an MCP role takes its tools from: those it
// names, else every server of the task.
func (t *Task) RoleServers(r Role) []sandbox.MCPServer {
	if !t.UsesMCP(r) {
		return nil
	}
	var out []sandbox.MCPServer
	for _, s := range t.Servers {
		if len(r.Servers) == 0 || slices.Contains(r.Servers, s.Name) {
			out = append(out, s)
		}
	}
	return out
}

// ServerOf returns the server that serves a tool in an MCP task.
func (t *Task) ServerOf(tool string) (sandbox.MCPServer, bool) {
	if !t.MCP() {
		return sandbox.MCPServer{}, false
	}
	for _, s := range t.Servers {
		if slices.Contains(s.Tools, tool) {
			return s, true
		}
	}
	return sandbox.MCPServer{}, false
}

// mcpServers are the task's servers as its environment serves them.
func (t *Task) mcpServers() []sandbox.MCPServer {
	if !t.MCP() {
		return nil
	}
	return slices.Clone(t.Servers)
}

// server decodes a server block.
func (d *decoder) server(b *hcl.Block) (sandbox.MCPServer, bool) {
	var raw rawServer
	bc := hcldiag.Decode(d.l, b, d.ctx, &raw)
	s := sandbox.MCPServer{Name: bc.Name, Tools: raw.Tools, Trusted: deref(raw.Trusted, true)}
	if !hcldiag.ValidName(s.Name) {
		d.l.Errorf(bc.Label(), "Invalid server name", "The server name %q must be a plain name (letters, digits, '.', '_', '-').", s.Name)
	}
	d.servers = append(d.servers, bc)
	return s, d.unique("server", s.Name, b)
}

// checkMCP reports what keeps a task's MCP wiring from running: a
// tools_from that is neither, servers in a task without MCP, an MCP role
// without servers, a server's unknown or doubly served tool, a role's
// tool no server of it serves, a rug pull or a shadowing tool that no
// server serves, a shadowing tool that names no other server's tool; and
// it warns of a payload in a trusted server's listing.
func (d *decoder) checkMCP(t *Task) {
	from := []string{FromToolbox, FromMCP}
	if t.ToolsFrom != "" && !slices.Contains(from, t.ToolsFrom) {
		d.l.Errorf(d.taskBlock.Rng("tools_from"), "Unknown tools_from", "%q is not where tools come from; use one of %s.", t.ToolsFrom, hcldiag.QuoteList(from))
	}
	valid := func(f string) bool { return f == "" || slices.Contains(from, f) }
	typo := !valid(t.ToolsFrom) || slices.ContainsFunc(t.Roles, func(r Role) bool { return !valid(r.ToolsFrom) })
	if len(t.Servers) > 0 && !t.MCP() && !typo {
		d.l.Errorf(d.servers[0].Label(), "Servers without MCP", "Task %q has server blocks, and none of its roles takes its tools from MCP, so no server would run; say tools_from = \"mcp\" on the task or a role.", t.Name)
	}
	served := map[string]string{}
	for i, s := range t.Servers {
		bc := d.servers[i]
		for j, name := range s.Tools {
			if _, ok := t.Spec(name); !ok {
				d.l.Errorf(bc.Elem("tools", j), "Unknown tool", "Server %q serves %q, which is neither a built-in tool nor a tool block of task %q.", s.Name, name, t.Name)
			}
			if other, dup := served[name]; dup {
				d.l.Errorf(bc.Elem("tools", j), "Tool served twice", "Tool %q is served by server %q already; a tool has one server.", name, other)
			}
			served[name] = s.Name
		}
	}
	for i, r := range t.Roles {
		bc := d.roles[i]
		if r.ToolsFrom != "" && !slices.Contains(from, r.ToolsFrom) {
			d.l.Errorf(bc.Rng("tools_from"), "Unknown tools_from", "%q is not where tools come from; use one of %s.", r.ToolsFrom, hcldiag.QuoteList(from))
			continue
		}
		if !t.UsesMCP(r) {
			if len(r.Servers) > 0 {
				d.l.Errorf(bc.Rng("servers"), "Servers without MCP", "Role %q names servers but takes its tools from the toolbox; say tools_from = \"mcp\".", r.Name)
			}
			continue
		}
		for j, name := range r.Servers {
			if !slices.ContainsFunc(t.Servers, func(s sandbox.MCPServer) bool { return s.Name == name }) {
				d.l.Errorf(bc.Elem("servers", j), "Unknown server", "Task %q has no server block %q.", t.Name, name)
			}
		}
		mine := t.RoleServers(r)
		if len(mine) == 0 {
			d.l.Errorf(bc.Label(), "No MCP server", "Role %q takes its tools from MCP, and task %q has no server block for it.", r.Name, t.Name)
			continue
		}
		for j, name := range r.Tools {
			if !slices.ContainsFunc(mine, func(s sandbox.MCPServer) bool { return slices.Contains(s.Tools, name) }) {
				d.l.Errorf(bc.Elem("tools", j), "Tool not served", "Role %q takes its tools from MCP, and none of its servers serves %q.", r.Name, name)
			}
		}
	}
	for i, tl := range t.Tools {
		bc := d.tools[i]
		own, mcp := t.ServerOf(tl.Name)
		if !mcp && (tl.RugPull != "" || tl.Shadows != "") {
			attr := "rug_pull"
			if tl.RugPull == "" {
				attr = "shadows"
			}
			d.l.Errorf(bc.Rng(attr), "Not an MCP tool", "Tool %q has %s, which only an MCP server serves; name it in a server block of an MCP task.", tl.Name, attr)
		}
		if tl.Shadows != "" && mcp {
			d.checkShadows(t, tl, own, bc)
		}
		if mcp && own.Trusted {
			d.checkTrustedListing(tl, own, bc)
		}
	}
}

// checkShadows reports a shadowing tool that names no tool of another of
// the task's servers: shadowing is one server's tool describing another
// server's.
func (d *decoder) checkShadows(t *Task, tl Tool, own sandbox.MCPServer, bc *hcldiag.Block) {
	other, served := t.ServerOf(tl.Shadows)
	switch _, known := t.Spec(tl.Shadows); {
	case !known:
		d.l.Errorf(bc.Rng("shadows"), "Unknown tool", "Tool %q shadows %q, which is no tool of task %q.", tl.Name, tl.Shadows, t.Name)
	case tl.Shadows == tl.Name:
		d.l.Errorf(bc.Rng("shadows"), "Shadows itself", "Tool %q shadows itself; shadows names another server's tool, whose use its description steers.", tl.Name)
	case !served:
		d.l.Errorf(bc.Rng("shadows"), "Shadowed tool not served", "Tool %q shadows %q, which no server of task %q serves; name it in another server's tools.", tl.Name, tl.Shadows, t.Name)
	case other.Name == own.Name:
		d.l.Errorf(bc.Rng("shadows"), "Shadows its own server", "Tool %q shadows %q, which its own server %q serves; shadowing is one server's tool steering another server's (a payload about a tool of the same server is a tool_description).", tl.Name, tl.Shadows, own.Name)
	}
}

// checkTrustedListing warns of a payload in the listing of a trusted
// server's tool: the operator runs a trusted server, and the defenses that
// read listings for outside text (spotlighting, pi_detector) skip it.
func (d *decoder) checkTrustedListing(tl Tool, own sandbox.MCPServer, bc *hcldiag.Block) {
	for _, f := range []struct{ attr, text string }{{"description", tl.Description}, {"parameters", string(tl.Parameters)}, {"rug_pull", tl.RugPull}} {
		if len(placeholders(f.text)) > 0 {
			d.l.Warnf(bc.Rng(f.attr), "Payload in a trusted server's listing", "Tool %q is served by %q, a trusted server (trusted is true unless it says false), and its %s holds a payload: the task's operator runs a trusted server, so spotlighting and pi_detector do not read its listings. Say trusted = false if a third party runs it.", tl.Name, own.Name, f.attr)
		}
	}
}
