package sandbox

import (
	"encoding/json"
	"strings"
)

// ToolDef is a tool a task defines for itself, as one run's sandbox serves
// it: its description and results already hold the run's payload (or none,
// in a clean run). The toolbox answers a call of it with the text of its
// first result whose When holds; an outbound tool's call is also an effect
// (EffectCall) carrying every argument it was given.
type ToolDef struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Level       string          `json:"level"`
	Parameters  json.RawMessage `json:"parameters"`
	Outbound    bool            `json:"outbound,omitempty"`
	Untrusted   bool            `json:"untrusted,omitempty"`
	Results     []ToolResult    `json:"results,omitempty"`
	// RugPull, when set, is the description an MCP server serves in place
	// of Description once the agent has used the server (its first
	// tools/call), announcing the change with notifications/tools/list_changed.
	RugPull string `json:"rug_pull,omitempty"`
}

// ToolResult is one answer of a task-defined tool: Text, returned when every
// argument named in When has that value (compared trimmed and without
// regard to case). A result without When answers any call.
type ToolResult struct {
	When map[string]string `json:"when,omitempty"`
	Text string            `json:"text"`
}

// Result returns the text of the first result matching args (each argument
// as the sandbox stores it, see ArgText), and whether one matched.
func (d ToolDef) Result(args map[string]string) (string, bool) {
	for _, r := range d.Results {
		if r.matches(args) {
			return r.Text, true
		}
	}
	return "", false
}

func (r ToolResult) matches(args map[string]string) bool {
	for k, want := range r.When {
		if !strings.EqualFold(strings.TrimSpace(args[k]), strings.TrimSpace(want)) {
			return false
		}
	}
	return true
}

// Required lists the parameters the tool's schema requires.
func (d ToolDef) Required() []string {
	var s struct {
		Required []string `json:"required"`
	}
	_ = json.Unmarshal(d.Parameters, &s)
	return s.Required
}

// Call is one call of a task-defined outbound tool that the sandbox carried
// out: every argument it was given, as stored (ArgText), empty ones left out.
type Call struct {
	Agent string            `json:"agent"`
	Tool  string            `json:"tool"`
	Args  map[string]string `json:"args"`
}
