package agent

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"sync/atomic"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/killchain/killchain/internal/errkind"
	"github.com/killchain/killchain/internal/tools"
	"github.com/killchain/killchain/internal/tracker"
	"github.com/killchain/killchain/internal/vocab"
	"github.com/killchain/killchain/sandbox"
)

// MCPDialer is a Sandbox that serves its environment's MCP servers
// (sandbox.Env's MCP). MCP opens one server's stdio stream for one agent:
// newline-delimited JSON-RPC messages, as an MCP client reads and writes
// them. In Docker and Kubernetes the stream travels over the sandbox's own
// attach or exec channel beside the toolbox protocol; the local backend
// serves it over an in-process pipe. Closing the stream ends the agent's
// session, not the sandbox.
type MCPDialer interface {
	MCP(ctx context.Context, server, agent string) (io.ReadWriteCloser, error)
}

// ListingFilter sees each MCP tool listing before the model does. A
// listing's tools are pinned at the session's first listing; Withhold
// reports whether a tool whose description changed since (pinned is its
// first spec; none for a tool that was not listed then) is withheld from
// the model, and why.
type ListingFilter interface {
	Withhold(server string, pinned *tools.Spec, now tools.Spec) (bool, string)
}

// ListingChecker judges each tool an untrusted MCP server lists before
// the model is handed it (a classifier of descriptions); a blocked tool is
// withheld from the listing (the agent keeps the tool's last version that
// passed, if one did). A verdict with Failed set also withholds it,
// recorded as a classifier error.
type ListingChecker interface {
	CheckListing(ctx context.Context, server string, spec tools.Spec) (Verdict, error)
}

// DescriptionWrapper rewrites the description of an untrusted server's
// tool before the model reads it.
type DescriptionWrapper interface {
	WrapDescription(tool, text string) string
}

// listChanged is the notification a server sends when its tools change.
const listChanged = "notifications/tools/list_changed"

// DefaultMCPTimeout bounds one MCP request (a listing, a call) when the
// Config sets no MCPTimeout: a server that does not answer makes the run a
// sandbox error (reason timeout), as a toolbox that does not answer does.
const DefaultMCPTimeout = 2 * time.Minute

// mcpContext is ctx bounded by the agent's MCP timeout, and a function
// that turns a request's error into the run's: a timeout says so.
func (c *Config) mcpContext(ctx context.Context, server, what string) (context.Context, context.CancelFunc, func(error) error) {
	timeout := cmp.Or(c.MCPTimeout, DefaultMCPTimeout)
	cctx, cancel := context.WithTimeout(ctx, timeout)
	wrap := func(err error) error {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if cctx.Err() != nil {
			return sandbox.Failf(sandbox.FaultTimeout, "mcp server %s: %s: no answer in %s", server, what, timeout)
		}
		return fmt.Errorf("mcp server %s: %s: %w", server, what, err)
	}
	return cctx, cancel, wrap
}

// mcpSession is the agent's session with one server.
type mcpSession struct {
	server  sandbox.MCPServer
	cs      *mcp.ClientSession
	changed atomic.Bool // a list_changed notification came in, in stream order
	pinned  map[string]tools.Spec
	hashes  map[string]string
	shown   []tools.Spec          // the listing as the model was last handed it
	checked map[string]Verdict    // listing checks by defense and tool hash
	passed  map[string]tools.Spec // each tool's last version the checks passed
}

// mcpTools are an agent's MCP sessions and the listing it is shown.
type mcpTools struct {
	sessions []*mcpSession
	owner    map[string]*mcpSession
}

// connect opens a session with each of the agent's servers and lists
// their tools.
func (c *Config) connect(ctx context.Context) error {
	c.mcp = &mcpTools{}
	for _, sv := range c.Servers {
		s := &mcpSession{server: sv}
		rwc, err := c.MCP.MCP(ctx, sv.Name, c.Agent)
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			return c.mcpErr(sv.Name, "open", err)
		}
		// The stream (watched) notes list_changed as it is read; the SDK's
		// ToolListChangedHandler would note it again later, on its own
		// goroutine, and a listing already fetched would be fetched again.
		client := mcp.NewClient(&mcp.Implementation{Name: "killchain-agent", Version: c.Agent}, &mcp.ClientOptions{
			Logger: slog.New(slog.DiscardHandler),
		})
		cs, err := client.Connect(ctx, watched{&mcp.IOTransport{Reader: rwc, Writer: rwc}, s}, nil)
		if err != nil {
			rwc.Close()
			if ctx.Err() != nil {
				return ctx.Err()
			}
			return c.mcpErr(sv.Name, "initialize", err)
		}
		s.cs = cs
		c.mcp.sessions = append(c.mcp.sessions, s)
		if init := cs.InitializeResult(); init != nil && init.ServerInfo != nil {
			c.mcpLog().Debug("mcp session initialized", "server", sv.Name, "trusted", sv.Trusted, "protocol", init.ProtocolVersion,
				"server_info", init.ServerInfo.Name+" "+init.ServerInfo.Version)
		}
	}
	return nil
}

// disconnect ends the agent's sessions.
func (c *Config) disconnect() {
	if c.mcp == nil {
		return
	}
	for _, s := range c.mcp.sessions {
		s.cs.Close()
	}
}

// mcpLog is the agent's MCP logger, a null one when none is set.
func (c *Config) mcpLog() hclog.Logger {
	if c.MCPLog == nil {
		return hclog.NewNullLogger()
	}
	return c.MCPLog
}

func (c *Config) mcpErr(server, what string, err error) error {
	return &RunError{Kind: errkind.Sandbox, Err: fmt.Errorf("mcp server %s: %s: %w", server, what, err)}
}

// refresh lists the tools of every session whose list changed (every
// session the first time), passes each listing through the defenses, and
// delivers what changed to the model: a transcript entry and a tool_listing
// observation per server. It returns the specs the model is handed.
func (c *Config) refresh(ctx context.Context, step int, res *Result) ([]tools.Spec, error) {
	pos := vocab.PosLabel(c.Pos)
	owner := map[string]*mcpSession{}
	var all []tools.Spec
	for _, s := range c.mcp.sessions {
		if s.pinned == nil || s.changed.Swap(false) {
			specs, err := c.list(ctx, s)
			if err != nil {
				return nil, err
			}
			c.mcpLog().Debug("mcp tools/list", "server", s.server.Name, "step", step, "tools", len(specs), "after_list_changed", s.pinned != nil)
			shown, err := c.filter(ctx, s, specs, step, res)
			if err != nil {
				return nil, err
			}
			if s.pinned == nil || !sameSpecs(shown, s.shown) {
				text := ListingText(shown)
				raw, _ := json.Marshal(shown)
				c.Transcript.Add(Entry{Agent: c.Agent, Pos: pos, Step: step, Kind: KindListing, Tool: s.server.Name, Text: text, Raw: raw})
				c.Tracker.Observe(tracker.Obs{Agent: c.Agent, Pos: c.Pos, Step: step, Tool: s.server.Name, Channel: vocab.ToolListing, Text: text})
			}
			if s.pinned == nil {
				s.pinned, s.hashes = map[string]tools.Spec{}, map[string]string{}
				for _, sp := range specs {
					s.pinned[sp.Name], s.hashes[sp.Name] = sp, specHash(sp)
				}
			}
			s.shown = shown
		}
		for _, sp := range s.shown {
			if prev, dup := owner[sp.Name]; dup {
				return nil, c.mcpErr(s.server.Name, "tools/list", fmt.Errorf("tool %q is also listed by server %s; tool names must be unique across an agent's servers", sp.Name, prev.server.Name))
			}
			owner[sp.Name] = s
			all = append(all, sp)
		}
	}
	c.mcp.owner = owner
	return all, nil
}

// list reads one server's whole listing as specs: each tool's schema
// checked, its level and trust from the task (a tool the task does not
// know is admin-level), untrusted when its server is.
func (c *Config) list(ctx context.Context, s *mcpSession) ([]tools.Spec, error) {
	var out []tools.Spec
	lctx, cancel, wrap := c.mcpContext(ctx, s.server.Name, "tools/list")
	defer cancel()
	for t, err := range s.cs.Tools(lctx, nil) {
		if err != nil {
			if err = wrap(err); ctx.Err() != nil {
				return nil, err
			}
			return nil, &RunError{Kind: errkind.Sandbox, Err: err}
		}
		params, err := checkSchema(t.InputSchema)
		if err != nil {
			return nil, c.mcpErr(s.server.Name, "tools/list", fmt.Errorf("tool %q has an invalid input schema: %w", t.Name, err))
		}
		sp := tools.Spec{Name: t.Name, Description: t.Description, Parameters: params, Level: tools.Admin, Untrusted: true, Server: s.server.Name}
		if known, ok := c.known(t.Name); ok {
			sp.Level, sp.Outbound, sp.Untrusted = known.Level, known.Outbound, known.Untrusted
		}
		sp.Untrusted = sp.Untrusted || !s.server.Trusted
		out = append(out, sp)
	}
	return out, nil
}

// filter passes a listing through the listing defenses: a tool pinned at
// the first listing and changed since, or new since, may be withheld (its
// pinned spec, if any, is shown instead), each withholding recorded.
func (c *Config) filter(ctx context.Context, s *mcpSession, specs []tools.Spec, step int, res *Result) ([]tools.Spec, error) {
	pos := vocab.PosLabel(c.Pos)
	shown := make([]tools.Spec, 0, len(specs))
	for _, sp := range specs {
		keep := sp
		if s.pinned != nil && s.hashes[sp.Name] != specHash(sp) {
			var pinned *tools.Spec
			if p, ok := s.pinned[sp.Name]; ok {
				pinned = &p
			}
			for _, d := range c.Defenses {
				f, ok := d.(ListingFilter)
				if !ok {
					continue
				}
				if block, reason := f.Withhold(s.server.Name, pinned, sp); block {
					text := ListingText([]tools.Spec{sp})
					c.Transcript.Add(Entry{Agent: c.Agent, Pos: pos, Step: step, Kind: KindDefense, Tool: sp.Name, Defense: d.Name(), Text: "withheld: " + reason + "\n" + text})
					c.Tracker.Withheld(tracker.Obs{Agent: c.Agent, Pos: c.Pos, Step: step, Tool: sp.Name, Channel: vocab.ToolListing, Text: text}, d.Name()+": "+reason)
					keep = tools.Spec{}
					if pinned != nil {
						keep = *pinned
					}
					break
				}
			}
		}
		if keep.Name == "" {
			continue
		}
		if !s.server.Trusted {
			ok, err := c.checkListed(ctx, s, keep, step, res)
			if err != nil {
				return nil, err
			}
			prev, had := s.passed[keep.Name]
			switch {
			case ok:
				if s.passed == nil {
					s.passed = map[string]tools.Spec{}
				}
				s.passed[keep.Name] = keep
			case had:
				keep = prev // the agent keeps the version that passed
			default:
				continue
			}
		}
		if keep.Untrusted && !s.server.Trusted {
			for _, d := range c.Defenses {
				if w, ok := d.(DescriptionWrapper); ok {
					keep.Description = w.WrapDescription(keep.Name, keep.Description)
				}
			}
		}
		shown = append(shown, keep)
	}
	return shown, nil
}

// checkListed passes one tool of an untrusted server through the listing
// checkers (each tool version once per session) and reports whether it
// may be shown; a withheld one is recorded. A checker's error is a defense
// error: the run is an error, never an outcome.
func (c *Config) checkListed(ctx context.Context, s *mcpSession, sp tools.Spec, step int, res *Result) (bool, error) {
	pos := vocab.PosLabel(c.Pos)
	for _, d := range c.Defenses {
		chk, ok := d.(ListingChecker)
		if !ok {
			continue
		}
		key := d.Name() + "\x00" + specHash(sp)
		v, done := s.checked[key]
		if !done {
			var err error
			v, err = chk.CheckListing(ctx, s.server.Name, sp)
			res.Usage.Add(v.Usage)
			res.DefenseUsage.Add(v.Usage)
			if err != nil {
				return false, &RunError{Kind: errkind.Defense, Err: fmt.Errorf("%s: %w", d.Name(), err)}
			}
			if s.checked == nil {
				s.checked = map[string]Verdict{}
			}
			s.checked[key] = v
		}
		if !v.Block && !v.Failed {
			continue
		}
		text := ListingText([]tools.Spec{sp})
		o := tracker.Obs{Agent: c.Agent, Pos: c.Pos, Step: step, Tool: sp.Name, Channel: vocab.ToolListing, Text: text}
		if v.Failed && !done {
			res.ClassifierErrors++
			c.Tracker.ClassifierError(o, d.Name()+": "+v.Reason)
		}
		if !done {
			c.Transcript.Add(Entry{Agent: c.Agent, Pos: pos, Step: step, Kind: KindDefense, Tool: sp.Name, Defense: d.Name(), Text: "withheld: " + v.Reason + "\n" + text})
			c.Tracker.Withheld(o, d.Name()+": "+v.Reason)
		}
		return false, nil
	}
	return true, nil
}

// callMCP runs a tool call over the session of the server that lists the
// tool. A tool error is the result's error; a server that fails the call
// or a stream that broke is a sandbox error.
func (c *Config) callMCP(ctx context.Context, tool string, args json.RawMessage) (sandbox.Result, error) {
	s, ok := c.mcp.owner[tool]
	if !ok {
		return sandbox.Result{Error: fmt.Sprintf("unknown tool %q", tool)}, nil
	}
	cctx, cancel, wrap := c.mcpContext(ctx, s.server.Name, "tools/call "+tool)
	defer cancel()
	res, err := s.cs.CallTool(cctx, &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		c.mcpLog().Debug("mcp tools/call failed", "server", s.server.Name, "tool", tool, "error", err)
		return sandbox.Result{}, wrap(err)
	}
	c.mcpLog().Trace("mcp tools/call", "server", s.server.Name, "tool", tool, "is_error", res.IsError, "list_changed_pending", s.changed.Load())
	var text []string
	for _, ct := range res.Content {
		if t, ok := ct.(*mcp.TextContent); ok {
			text = append(text, t.Text)
		}
	}
	out := sandbox.Result{Output: strings.Join(text, "\n")}
	if res.IsError {
		out.Output, out.Error = "", strings.Join(text, "\n")
		if out.Error == "" {
			out.Error = "the tool failed"
		}
	}
	if v, ok := res.Meta[sandbox.MCPMetaEffect]; ok {
		var eff sandbox.Effect
		if err := remarshal(v, &eff); err != nil {
			return sandbox.Result{}, fmt.Errorf("mcp server %s: tools/call %s: effect: %w", s.server.Name, tool, err)
		}
		out.Effect = &eff
	}
	if v, ok := res.Meta[sandbox.MCPMetaExitCode]; ok {
		var code int
		if remarshal(v, &code) == nil {
			out.ExitCode = &code
		}
	}
	return out, nil
}

func remarshal(v, out any) error {
	data, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return json.Unmarshal(data, out)
}

// checkSchema checks a listed tool's input schema: a JSON object schema
// whose properties are objects. It returns the schema as JSON.
func checkSchema(v any) (json.RawMessage, error) {
	data, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	var s struct {
		Type       any                        `json:"type"`
		Properties map[string]json.RawMessage `json:"properties"`
	}
	if err := json.Unmarshal(data, &s); err != nil {
		return nil, fmt.Errorf("not a JSON object: %w", err)
	}
	if s.Type != "object" {
		return nil, fmt.Errorf("its type is %v, not \"object\"", s.Type)
	}
	for name, p := range s.Properties {
		var m map[string]any
		if err := json.Unmarshal(p, &m); err != nil || m == nil {
			return nil, fmt.Errorf("property %q is not a schema object", name)
		}
	}
	return data, nil
}

// ListingText is how a transcript and the tracker keep an MCP listing:
// per tool, "name: description" and its input schema, where a parameter's
// description may carry text too.
func ListingText(specs []tools.Spec) string {
	lines := make([]string, 0, 2*len(specs))
	for _, s := range specs {
		lines = append(lines, s.Name+": "+s.Description, "  input: "+string(s.Parameters))
	}
	return strings.Join(lines, "\n")
}

func specHash(s tools.Spec) string {
	h := sha256.Sum256([]byte(s.Name + "\x00" + s.Description + "\x00" + string(s.Parameters)))
	return hex.EncodeToString(h[:])
}

func sameSpecs(a, b []tools.Spec) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if specHash(a[i]) != specHash(b[i]) {
			return false
		}
	}
	return true
}

// watched is a transport whose connection notes a list_changed
// notification as it is read, before any message after it: a change the
// server announces before answering a call is known when the call returns.
type watched struct {
	t mcp.Transport
	s *mcpSession
}

func (w watched) Connect(ctx context.Context) (mcp.Connection, error) {
	conn, err := w.t.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return watchedConn{conn, w.s}, nil
}

type watchedConn struct {
	mcp.Connection
	s *mcpSession
}

func (w watchedConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	msg, err := w.Connection.Read(ctx)
	if r, ok := msg.(*jsonrpc.Request); ok && err == nil && !r.ID.IsValid() && r.Method == listChanged {
		w.s.changed.Store(true)
	}
	return msg, err
}
