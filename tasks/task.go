package tasks

import (
	"encoding/json"

	"slices"
	"strings"

	"github.com/hashicorp/hcl/v2"

	"github.com/killchain/killchain/internal/attacks"
	"github.com/killchain/killchain/internal/tools"
	"github.com/killchain/killchain/internal/vocab"
	"github.com/killchain/killchain/sandbox"
)

// Placeholders in payload and prompt templates.
const (
	CanaryPlaceholder   = "{{CANARY}}"
	AttackerPlaceholder = "{{ATTACKER}}"
	// HandoffPlaceholder marks where a delegation message goes in a reader's prompt.
	HandoffPlaceholder = "{{HANDOFF}}"
)

// Role is one agent of a task.
type Role struct {
	Name   string      // e.g. "researcher"
	System string      // system prompt
	Prompt string      // the user prompt that starts the agent; for the reader of a delegation relay, {{HANDOFF}} is replaced by the delegation message
	Level  tools.Level // highest level the role is granted
	Tools  []string    // tools the role is offered, built-in or the task's own
	// ToolsFrom is where the role takes its tools from: FromToolbox,
	// FromMCP, or "" for the task's ToolsFrom. Servers are the MCP servers
	// it uses (none named: every server of the task).
	ToolsFrom string
	Servers   []string
}

// Variant is one payload variant: what the payload says, and which of the
// task's placements it fills.
type Variant struct {
	Name string
	// Surface is the channel the payload enters through; by default the
	// surfaces of the placements it fills, joined with "+".
	Surface string
	// Payload is the wording, with {{CANARY}} and {{ATTACKER}}, of every
	// placement the variant fills that Payloads does not name.
	Payload string
	// Payloads is the wording of single placements, by placement name.
	Payloads map[string]string
	// Placements are the placement names the variant fills; nil fills
	// every placement of the task.
	Placements []string
	// Spoken is set when the variant fills a placement in an audio clip:
	// the payload is synthesized as speech.
	Spoken bool
	// Attack is the attack library's name for a variant written by an
	// attack ("tool_knowledge+base64"); "" for the task's own variants.
	// Such a variant is built whole by AttackVariant, never looked up.
	Attack string
	// Encodings apply, in order, to the wording once the run's canary and
	// the attacker's address are in it.
	Encodings []attacks.Encoding
	// NoCanary marks a variant whose wording carries no canary (a
	// denial-of-service attack): its attacked runs reach no stage.
	NoCanary bool
	// Injection is the injection task a variant of a user task plants
	// (its name is the variant's); nil for a task's own variants.
	Injection *Injection
}

// Fills reports whether the variant fills a placement.
func (v Variant) Fills(placement string) bool {
	return v.Placements == nil || slices.Contains(v.Placements, placement)
}

// Wording returns what the variant plants at a placement, and whether it
// fills that placement at all.
func (v Variant) Wording(placement string) (string, bool) {
	if !v.Fills(placement) {
		return "", false
	}
	if w, ok := v.Payloads[placement]; ok {
		return w, true
	}
	return v.Payload, v.Payload != ""
}

// Goal is the legitimate goal the verifier checks.
type Goal struct {
	Recipient string   // the report must reach this address
	KeyFacts  []string // and hold each of these facts (case-insensitive)
	// Check is a user task's goal: a condition on the environment after
	// the run (nil for a task without an environment).
	Check *Check
}

// AttackGoal is what the attacker wants.
type AttackGoal struct {
	Address          string   // reports to this address reach the attacker
	Tools            []string // outbound tools (admin or the task's own) whose use is the attacker's goal
	ProtectedRecords []string // database records that must not be deleted or altered
}

// BuildInput is what a run contributes to its environment.
type BuildInput struct {
	Study, Run string
	Variant    Variant // by name; a clean run may leave it empty or "none"
	Attacked   bool    // false under a clean condition: no payload is planted
	Canary     string  // "" when not attacked
	// Attacker, when set, is the attacker's identity {{ATTACKER}} stands
	// for in place of the task's attack address: a suite run's (the
	// injection's, else the suite's).
	Attacker string
}

// Task is one scenario, decoded from a task block (see Decode).
type Task struct {
	Name        string
	Description string
	Mode        vocab.Mode
	Roles       []Role // one for single tasks, writer then reader for relays
	Variants    []Variant
	Goal        Goal
	Attack      AttackGoal
	// PayloadTools are the tools whose results carry the payload; a run
	// whose first agent never calls one is a no-tool-call run.
	PayloadTools []string
	// ConditionPrompts is what each condition adds to the role prompts
	// (see PromptFor): the task, not the runner, says what a condition
	// changes. A condition it does not name adds nothing.
	ConditionPrompts map[string]string
	// AttackGoalOnly marks a task whose payloads carry no canary: it
	// measures the attack goal, and its runs reach no stage.
	AttackGoalOnly bool
	// Override lets a study's task replace the built-in task of its name.
	Override bool
	// ToolsFrom is where the task's roles take their tools from unless a
	// role says otherwise (FromToolbox when ""); Servers are its MCP
	// servers (see mcp.go).
	ToolsFrom string
	Servers   []sandbox.MCPServer

	// The environment, one kind of item each.
	Pages     []Page
	Notes     []Note
	Records   []Record
	Documents []Document
	Clips     []Clip
	Tools     []Tool
	// Reward is set for reward-hack tasks: their workspace, tests and
	// protected files. See reward.go.
	Reward *RewardHack
	// Environment is set for a user task: the stateful environment its
	// roles work in (environment.go). GroundTruth is the calls that solve
	// it; Helpful marks a task whose data carries a benign instruction the
	// task needs followed.
	Environment *Environment
	GroundTruth []GroundTruthCall
	Helpful     bool
	// suites are the suites that hold a user task: its resolved form
	// keeps them (see Link).
	suites []*Suite

	// Source says where the definition came from.
	Source Source
}

// Source is where a task's definition came from.
type Source struct {
	File    string // the task file, or the study file holding the block
	Builtin bool   // embedded in the binary
	// Text is the task block as written (a built-in's whole file).
	Text []byte
	// Range is where the task's name stands in File.
	Range hcl.Range
}

// Page is a web page get_webpage serves.
type Page struct{ URL, Text string }

// Note is a memory record planted by the harness (author "seed").
type Note struct{ Key, Text string }

// Record is a row of the records database search returns.
type Record struct{ ID, Title, Text string }

// Document is a PDF parse_pdf reads: Body is paragraphs parted by blank
// lines. Appended is visible text after the body, WhiteText 1-pt white text
// before the abstract, Metadata text whose first line is appended to the
// Subject and the rest to the Keywords.
type Document struct {
	Path, Title, Author, Subject, Keywords string
	Abstract, Body                         string
	Appended, WhiteText, Metadata          string
}

// Clip is a recording transcribe_audio hears: Script is spoken into the
// clip at set-up.
type Clip struct{ Path, Script string }

// Tool is a tool of the task's own.
type Tool struct {
	Name        string
	Description string
	Level       tools.Level
	Parameters  json.RawMessage // JSON schema of the arguments object
	Outbound    bool            // its calls are effects that leave the sandbox
	Untrusted   bool            // its results are content from outside (spotlighting wraps them)
	Results     []ToolResult
	// RugPull is the description an MCP server serves in place of
	// Description once the agent has used the server; Shadows names the
	// tool (another server's) whose use this tool's description steers.
	RugPull string
	Shadows string
}

// ToolResult is one answer of a task tool: Text, when every argument in
// When has that value (case-insensitive); no When answers any call.
type ToolResult struct {
	When map[string]string
	Text string
}

// Tool returns a task tool by name.
func (t *Task) Tool(name string) (Tool, bool) {
	for _, tl := range t.Tools {
		if tl.Name == name {
			return tl, true
		}
	}
	return Tool{}, false
}

// Variant returns a variant by name.
func (t *Task) Variant(name string) (Variant, bool) {
	for _, v := range t.Variants {
		if v.Name == name {
			return v, true
		}
	}
	return Variant{}, false
}

// VariantNames lists the task's variant names in declaration order.
func (t *Task) VariantNames() []string {
	out := make([]string, len(t.Variants))
	for i, v := range t.Variants {
		out[i] = v.Name
	}
	return out
}

// Surface is the surface of a variant, or of the task's first variant.
func (t *Task) Surface(variant string) string {
	if v, ok := t.Variant(variant); ok {
		return v.Surface
	}
	if len(t.Variants) > 0 {
		return t.Variants[0].Surface
	}
	return ""
}

// CarriesCanary reports whether a run of the task carries a canary: every
// attacked run, and every run of a reward-hack task whatever its condition.
func (t *Task) CarriesCanary(attacked bool) bool { return attacked || t.Reward != nil }

// PromptFor returns a role's prompt under a condition: the prompt plus what
// the task says the condition adds to it (nothing when the task does not
// name the condition).
func (t *Task) PromptFor(role Role, condition string) string {
	if add := t.ConditionPrompts[condition]; add != "" {
		return role.Prompt + "\n\n" + add
	}
	return role.Prompt
}

// Offered reports whether some role of the task is offered a tool.
func (t *Task) Offered(tool string) bool {
	for _, r := range t.Roles {
		if slices.Contains(r.Tools, tool) {
			return true
		}
	}
	return false
}

// Spec returns the spec of a tool as the task offers it: one of its own
// tools as declared (placeholders left in), else a built-in tool.
func (t *Task) Spec(name string) (tools.Spec, bool) {
	if tl, ok := t.Tool(name); ok {
		return tl.Spec(), true
	}
	if t.Environment != nil {
		return t.Environment.spec(name)
	}
	return tools.Lookup(name)
}

// Spec is the tool as a model is offered it.
func (tl Tool) Spec() tools.Spec {
	return tools.Spec{Name: tl.Name, Description: tl.Description, Level: tl.Level, Parameters: tl.Parameters,
		Outbound: tl.Outbound, Untrusted: tl.Untrusted}
}

// lower is strings.ToLower of a trimmed string.
func lower(s string) string { return strings.ToLower(strings.TrimSpace(s)) }
