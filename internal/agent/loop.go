package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/killchain/killchain/internal/errkind"
	"github.com/killchain/killchain/internal/tools"
	"github.com/killchain/killchain/internal/tracker"
	"github.com/killchain/killchain/internal/vocab"
	"github.com/killchain/killchain/sandbox"
)

// DefaultMaxTurns bounds each agent's model turns.
const DefaultMaxTurns = 10

// Caller runs tool calls; a sandbox.Sandbox is one.
type Caller interface {
	Call(ctx context.Context, agent, tool string, args json.RawMessage) (sandbox.Result, error)
}

// Config is one agent's part of a run.
type Config struct {
	Agent     string // role name, as events and transcripts name it
	Pos       int    // 0 for agent A, 1 for agent B
	Model     Model
	System    string
	Prompt    string
	Condition string // extra instructions of the run's condition, added to the system prompt
	Level     tools.Level
	Tools     []string // tools the role is offered
	// TaskTools are the specs of the task's own tools in this run (their
	// descriptions hold the run's payload, if one is placed there); a tool
	// name is looked up here before the built-in tools.
	TaskTools    []tools.Spec
	PayloadTools []string
	// Servers, when set, are the MCP servers the agent takes its tools
	// from, through MCP: it lists their tools (the role's Tools aside),
	// calls them with tools/call and lists again when a server announces
	// a change (see mcp.go). Level still bounds what it may call.
	Servers    []sandbox.MCPServer
	MCP        MCPDialer
	MCPTimeout time.Duration // one MCP request's bound; DefaultMCPTimeout when 0
	MCPLog     hclog.Logger  // the MCP exchange at debug and trace level; none when nil
	Sandbox    Caller
	Tracker    *tracker.Tracker
	Defenses   []Defense
	Transcript *Transcript
	MaxTurns   int
	Step       *int // run-wide step counter shared by the run's agents
	// WorldTools are the tools a stateful environment serves (the sandbox
	// answers them from its state), true for those that change it: a failed
	// call of one is an attempt. Shadowed is set when the run's world keeps
	// a clean twin (world.Def.Clean): each of their results is then
	// observed with its shadow, which tells Relayed in a pipeline.
	WorldTools map[string]bool
	Shadowed   bool
	// Script is handed to the model on every request (see Script): set on
	// suite runs, for the scripted reference agents.
	Script *Script

	mcp    *mcpTools // the agent's MCP sessions, while it runs
	shadow *string   // the shadow of the last call's result, for its observation
}

// Result is what one agent did.
type Result struct {
	Steps             int
	ToolCalls         int
	Outbound          int
	BlockedCalls      int
	RefusedCalls      int
	FailedCalls       int // effect-carrying calls that carried out nothing
	ClassifierErrors  int // call checks with no usable verdict (each blocked its call)
	CalledPayloadTool bool
	Delegations       []string
	Final             string // narration of the last turn
	Usage             Usage
	// DefenseUsage is the part of Usage the defenses' classifier spent
	// (another model, priced as its own).
	DefenseUsage Usage
}

// RunError is a failure that makes a run an error, never an outcome.
type RunError struct {
	Kind errkind.Kind
	Err  error
}

func (e *RunError) Error() string { return fmt.Sprintf("%s error: %v", e.Kind, e.Err) }
func (e *RunError) Unwrap() error { return e.Err }

// Run drives one agent until it stops calling tools or runs out of turns.
func Run(ctx context.Context, c Config) (Result, error) {
	var res Result
	if c.MaxTurns <= 0 {
		c.MaxTurns = DefaultMaxTurns
	}
	if c.Step == nil {
		c.Step = new(int)
	}
	pos := vocab.PosLabel(c.Pos)
	system := SystemPrompt(c.System, c.Condition, c.Defenses)
	if c.Condition != "" {
		c.Transcript.Add(Entry{Agent: c.Agent, Pos: pos, Kind: KindCondition, Text: c.Condition})
	}
	c.Transcript.Add(Entry{Agent: c.Agent, Pos: pos, Kind: KindSystem, Text: system})
	c.Transcript.Add(Entry{Agent: c.Agent, Pos: pos, Kind: KindPrompt, Text: c.Prompt})
	c.Tracker.Observe(tracker.Obs{Agent: c.Agent, Pos: c.Pos, Step: *c.Step, Channel: vocab.Prompt, Text: c.Prompt})
	var specs []tools.Spec
	if len(c.Servers) > 0 {
		if c.MCP == nil {
			return res, &RunError{Kind: errkind.Sandbox, Err: fmt.Errorf("the %s role takes its tools from MCP, and this sandbox serves none", c.Agent)}
		}
		defer c.disconnect()
		if err := c.connect(ctx); err != nil {
			return res, err
		}
		var err error
		if specs, err = c.refresh(ctx, *c.Step, &res); err != nil {
			return res, err
		}
	} else {
		// What the agent is told about its tools is delivered to it like a
		// tool result: a payload in a description is seen from the first turn.
		specs = c.Offered()
		offered := OfferedText(specs)
		raw, _ := json.Marshal(specs)
		c.Transcript.Add(Entry{Agent: c.Agent, Pos: pos, Kind: KindTools, Text: offered, Raw: raw})
		c.Tracker.Observe(tracker.Obs{Agent: c.Agent, Pos: c.Pos, Step: *c.Step, Channel: vocab.ToolDescription, Text: offered})
	}
	msgs := []Message{{Role: RoleUser, Content: c.Prompt}}

	for turn := 0; turn < c.MaxTurns; turn++ {
		if err := ctx.Err(); err != nil {
			return res, err
		}
		*c.Step++
		step := *c.Step
		res.Steps++
		if c.mcp != nil {
			var err error
			if specs, err = c.refresh(ctx, step, &res); err != nil {
				return res, err
			}
		}
		reply, err := c.Model.Generate(ctx, Request{System: system, Messages: msgs, Tools: specs, Script: c.Script})
		if err != nil {
			if ctx.Err() != nil {
				return res, ctx.Err()
			}
			return res, &RunError{Kind: errkind.Provider, Err: err}
		}
		res.Usage.Add(reply.Usage)
		obs := func(ch vocab.Channel, tool, text string) tracker.Obs {
			return tracker.Obs{Agent: c.Agent, Pos: c.Pos, Step: step, Tool: tool, Channel: ch, Text: text}
		}
		u := reply.Usage
		if reply.Thinking != "" || reply.Redacted {
			c.Transcript.Add(Entry{Agent: c.Agent, Pos: pos, Step: step, Kind: KindThinking, Text: reply.Thinking, Redacted: reply.Redacted})
			c.Tracker.Observe(obs(vocab.Thinking, "", reply.Thinking))
		}
		c.Transcript.Add(Entry{Agent: c.Agent, Pos: pos, Step: step, Kind: KindNarration, Text: reply.Narration, Usage: &u})
		c.Tracker.Observe(obs(vocab.Narration, "", reply.Narration))
		if err := stopError(reply); err != nil {
			return res, err
		}
		res.Final = reply.Narration
		msgs = append(msgs, Message{Role: RoleAssistant, Content: reply.Narration, Thinking: reply.Thinking, ToolCalls: reply.ToolCalls, Provider: reply.Provider})
		if len(reply.ToolCalls) == 0 {
			return res, nil
		}
		for _, call := range reply.ToolCalls {
			out, isErr, err := c.call(ctx, &res, call, obs)
			if err != nil {
				return res, err
			}
			// Everything the model is shown is observed once, here: a
			// successful read_memory result is the memory channel, every
			// other tool message (errors and refusals included) a result.
			ch := vocab.ToolResult
			if call.Name == tools.ReadMemory && !isErr {
				ch = vocab.MemoryRead
			}
			o := obs(ch, call.Name, out)
			o.Shadow = c.shadow
			c.Tracker.Observe(o)
			msgs = append(msgs, Message{Role: RoleTool, Content: out, ToolCallID: call.ID, ToolName: call.Name, IsError: isErr})
		}
	}
	return res, nil
}

// SystemPrompt is the system prompt an agent is given: its role's, with
// what each defense adds to it (spotlighting's notice) and the condition's
// instructions after it.
func SystemPrompt(system, condition string, defenses []Defense) string {
	for _, d := range defenses {
		if s, ok := d.(SystemAdder); ok {
			system = s.AddSystem(system)
		}
	}
	if condition != "" {
		system = strings.TrimSpace(system + "\n\n" + condition)
	}
	return system
}

// Offered returns the specs of the tools the agent is offered, in the
// order its role lists them.
func (c *Config) Offered() []tools.Spec {
	specs := make([]tools.Spec, 0, len(c.Tools))
	for _, name := range c.Tools {
		if s, ok := c.lookup(name); ok {
			specs = append(specs, s)
		}
	}
	return specs
}

// lookup returns a tool's spec as the agent is offered it: from its MCP
// listing when it takes its tools from MCP, else one of the task's own,
// else a built-in.
func (c *Config) lookup(name string) (tools.Spec, bool) {
	if c.mcp != nil {
		if s, ok := c.mcp.owner[name]; ok {
			for _, sp := range s.shown {
				if sp.Name == name {
					return sp, true
				}
			}
		}
		return tools.Spec{}, false
	}
	return c.known(name)
}

// known returns what the task says of a tool: one of its own, else a
// built-in.
func (c *Config) known(name string) (tools.Spec, bool) {
	for _, s := range c.TaskTools {
		if s.Name == name {
			return s, true
		}
	}
	return tools.Lookup(name)
}

// offeredNames lists the tools the agent is offered now.
func (c *Config) offeredNames() []string {
	if c.mcp == nil {
		return c.Tools
	}
	var out []string
	for _, s := range c.mcp.sessions {
		for _, sp := range s.shown {
			out = append(out, sp.Name)
		}
	}
	return out
}

// OfferedText is how a transcript and the tracker keep the tools an agent
// is offered: one "name: description" line each.
func OfferedText(specs []tools.Spec) string {
	lines := make([]string, len(specs))
	for i, s := range specs {
		lines[i] = s.Name + ": " + s.Description
	}
	return strings.Join(lines, "\n")
}

// stopError turns a reply the provider cut or refused into a run error: its
// missing tool calls are not the agent's choice, so the run is no outcome.
func stopError(r Reply) error {
	detail := r.StopDetail
	if detail == "" {
		detail = string(r.Stop)
	}
	switch r.Stop {
	case StopLength, StopIncomplete:
		return &RunError{Kind: errkind.Truncated, Err: fmt.Errorf("reply cut before it ended (stop reason %q, %d output tokens, %d of them reasoning)", detail, r.Usage.Output, r.Usage.Reasoning)}
	case StopRefused:
		return &RunError{Kind: errkind.Refused, Err: fmt.Errorf("reply refused by the provider (stop reason %q)", detail)}
	}
	return nil
}

// effectful reports whether a tool changes the sandbox when it succeeds: a
// failed or refused call of one is an attempt.
func (c *Config) effectful(spec tools.Spec) bool {
	return spec.Outbound || spec.Name == tools.WriteMemory || spec.Name == tools.Delegate || c.WorldTools[spec.Name]
}

// call handles one tool call and returns the text the model is shown.
func (c *Config) call(ctx context.Context, res *Result, call ToolCall, obs func(vocab.Channel, string, string) tracker.Obs) (string, bool, error) {
	pos := vocab.PosLabel(c.Pos)
	step := *c.Step
	c.shadow = nil
	res.ToolCalls++
	c.Transcript.Add(Entry{Agent: c.Agent, Pos: pos, Step: step, Kind: KindToolCall, Tool: call.Name, CallID: call.ID, Args: call.Arguments})
	c.Tracker.Observe(obs(vocab.ToolCall, call.Name, call.Arguments))
	if slices.Contains(c.PayloadTools, call.Name) {
		res.CalledPayloadTool = true
	}
	toolErr := func(kind, msg string) (string, bool, error) {
		c.Transcript.Add(Entry{Agent: c.Agent, Pos: pos, Step: step, Kind: kind, Tool: call.Name, CallID: call.ID, Text: msg, IsError: true})
		return "error: " + msg, true, nil
	}
	spec, known := c.lookup(call.Name)
	if !known {
		return toolErr(KindToolResult, fmt.Sprintf("unknown tool %q; available tools: %s", call.Name, strings.Join(c.offeredNames(), ", ")))
	}
	// attempt records a call that carried out nothing, with what was asked.
	attempt := func(detail string) {
		if c.effectful(spec) {
			res.FailedCalls++
			c.Tracker.Attempt(obs(vocab.ToolCall, call.Name, call.Arguments), detail)
		}
	}
	if spec.Level > c.Level || (c.mcp == nil && !slices.Contains(c.Tools, call.Name)) {
		res.RefusedCalls++
		attempt("refused: not granted to the role")
		return toolErr(KindRefused, fmt.Sprintf("permission denied: %s needs %s level and is not granted to the %s role", call.Name, spec.Level, c.Agent))
	}
	args := json.RawMessage(call.Arguments)
	if strings.TrimSpace(call.Arguments) == "" {
		args = json.RawMessage("{}")
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(args, &obj); err != nil || obj == nil {
		msg := "arguments are null"
		if err != nil {
			msg = err.Error()
		}
		attempt("failed: arguments are not a JSON object")
		return toolErr(KindToolResult, fmt.Sprintf("arguments of %s are not a valid JSON object: %s", call.Name, msg))
	}
	if err := sandbox.CheckArgs(args); err != nil {
		// Refused before any defense reads it: a filter would inspect the
		// decoded value, which keeps only the last of two equal keys.
		attempt("failed: arguments repeat a key")
		return toolErr(KindToolResult, fmt.Sprintf("arguments of %s: %v", call.Name, err))
	}
	for _, d := range c.Defenses {
		chk, ok := d.(CallChecker)
		if !ok {
			continue
		}
		v, err := chk.CheckCall(ctx, call.Name, args)
		res.Usage.Add(v.Usage)
		res.DefenseUsage.Add(v.Usage)
		if err != nil {
			return "", false, &RunError{Kind: errkind.Defense, Err: fmt.Errorf("%s: %w", d.Name(), err)}
		}
		if v.Failed {
			res.ClassifierErrors++
			c.Tracker.ClassifierError(obs(vocab.ToolCall, call.Name, call.Arguments), d.Name()+": "+v.Reason)
			v.Block = true
		}
		if v.Block {
			res.BlockedCalls++
			attempt("blocked by " + d.Name())
			c.Transcript.Add(Entry{Agent: c.Agent, Pos: pos, Step: step, Kind: KindDefense, Tool: call.Name, CallID: call.ID, Defense: d.Name(), Text: "blocked: " + v.Reason})
			return "error: blocked by " + d.Name() + ": " + v.Reason, true, nil
		}
	}
	requested := ""
	if call.Name == tools.WriteMemory {
		key, value := recordArgs(obj)
		requested = strings.Join(append([]string{key}, sandbox.JSONStrings(value)...), "\n")
		c.Tracker.Observe(obs(vocab.WriteRequested, call.Name, requested))
		for _, d := range c.Defenses {
			f, ok := d.(WriteFilter)
			if !ok {
				continue
			}
			var removed []string
			key, value, removed = FilterRecord(f, key, value)
			if len(removed) > 0 {
				c.Transcript.Add(Entry{Agent: c.Agent, Pos: pos, Step: step, Kind: KindDefense, Tool: call.Name, CallID: call.ID, Defense: d.Name(), Text: "removed:\n" + strings.Join(removed, "\n")})
			}
			if key == "" {
				res.BlockedCalls++
				c.Tracker.BlockedWrite(obs(vocab.WriteRequested, call.Name, requested), "")
				attempt("blocked by " + d.Name() + ": the key was removed")
				return toolErr(KindDefense, "blocked by "+d.Name()+": the record's key was removed")
			}
		}
		obj["key"], obj["value"] = sandbox.TextValue(key), value
		args, _ = json.Marshal(obj)
	}
	var (
		r   sandbox.Result
		err error
	)
	if c.mcp != nil {
		r, err = c.callMCP(ctx, call.Name, args)
	} else {
		r, err = c.Sandbox.Call(ctx, c.Agent, call.Name, args)
	}
	if err != nil {
		if ctx.Err() != nil {
			return "", false, ctx.Err()
		}
		return "", false, &RunError{Kind: errkind.Sandbox, Err: err}
	}
	if eff := r.Effect; eff != nil {
		stored := strings.Join(eff.Strings(), "\n")
		switch {
		case eff.Kind == sandbox.EffectMemory:
			c.Tracker.Observe(obs(vocab.WriteCommitted, call.Name, stored))
			c.Tracker.BlockedWrite(obs(vocab.WriteRequested, call.Name, requested), stored)
		case eff.Kind == sandbox.EffectDelegation:
			res.Delegations = append(res.Delegations, eff.Message)
			c.Tracker.Observe(obs(vocab.Delegation, call.Name, eff.Message))
		case eff.Kind == sandbox.EffectState:
			c.Tracker.Observe(obs(vocab.StateWrite, call.Name, stored))
		case eff.Outbound():
			res.Outbound++
			c.Tracker.Observe(obs(vocab.Outbound, call.Name, stored))
			if len(eff.Changes) > 0 {
				c.Tracker.Observe(obs(vocab.StateWrite, call.Name, strings.Join(eff.StateStrings(), "\n")))
			}
		}
	} else if _, world := c.WorldTools[call.Name]; c.effectful(spec) && (!world || r.Error != "") {
		// An environment tool that answered and changed nothing carried
		// out nothing to count; one that failed is an attempt.
		attempt("failed: " + r.Error)
	}
	text := r.Text()
	if spec.Untrusted && r.Error == "" {
		for _, d := range c.Defenses {
			if w, ok := d.(ResultWrapper); ok {
				text = w.WrapResult(call.Name, text)
			}
		}
	}
	c.Transcript.Add(Entry{Agent: c.Agent, Pos: pos, Step: step, Kind: KindToolResult, Tool: call.Name, CallID: call.ID, Text: text, IsError: r.Error != "", Shadow: r.Shadow})
	if _, world := c.WorldTools[call.Name]; world && c.Shadowed && r.Error == "" {
		c.shadow = &text
		if r.Shadow != nil {
			c.shadow = r.Shadow
		}
	}
	return text, r.Error != "", nil
}
