package agent

import (
	"encoding/json"
	"strings"
	"sync"
)

// Entry kinds in a transcript.
const (
	KindSystem = "system"
	KindPrompt = "prompt"
	// KindTools lists the tools an agent is offered ("name: description"
	// lines; Raw holds their specs as the model was given them).
	KindTools = "tools"
	// KindListing is an MCP server's tool listing as the agent is handed
	// it (Tool names the server; Raw holds the specs).
	KindListing    = "tool_listing"
	KindCondition  = "condition"
	KindThinking   = "thinking"
	KindNarration  = "narration"
	KindToolCall   = "tool_call"
	KindToolResult = "tool_result"
	KindDefense    = "defense"
	KindRefused    = "refused"
	KindError      = "error"
)

// Entry is one item of a transcript. Thinking, narration, tool calls and
// tool results are separate entries, never merged.
type Entry struct {
	Agent    string          `json:"agent"`
	Pos      string          `json:"position"`
	Step     int             `json:"step"`
	Kind     string          `json:"kind"`
	Tool     string          `json:"tool,omitempty"`
	CallID   string          `json:"call_id,omitempty"`
	Text     string          `json:"text,omitempty"`
	Args     string          `json:"args,omitempty"`
	IsError  bool            `json:"is_error,omitempty"`
	Redacted bool            `json:"redacted,omitempty"`
	Defense  string          `json:"defense,omitempty"`
	Usage    *Usage          `json:"usage,omitempty"`
	Raw      json.RawMessage `json:"raw,omitempty"`
	// Shadow is what a stateful environment's tool would have answered
	// over the clean state, where that differs from the result (see
	// sandbox.Result.Shadow): the recount tells Relayed from it.
	Shadow *string `json:"shadow,omitempty"`
}

// Transcript collects a run's entries. It is safe for concurrent use.
type Transcript struct {
	mu      sync.Mutex
	Entries []Entry `json:"entries"`
}

// Add appends an entry.
func (t *Transcript) Add(e Entry) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.Entries = append(t.Entries, e)
}

// All returns a copy of the entries.
func (t *Transcript) All() []Entry {
	t.mu.Lock()
	defer t.mu.Unlock()
	return append([]Entry(nil), t.Entries...)
}

// ToolMessage is the tool message an agent was shown for a transcript
// entry, and whether it was an error; ok is false for an entry that is no
// tool message (a defense's note about a write it filtered, a call, text).
// A result's text is recorded as shown; the loop's refusals and a defense's
// blocks are recorded without the "error: " the agent saw before them.
func ToolMessage(e Entry) (text string, isErr, ok bool) {
	switch e.Kind {
	case KindToolResult:
		text := e.Text
		if e.IsError && !strings.HasPrefix(text, "error: ") {
			text = "error: " + text // the loop's own errors (unknown tool, bad arguments)
		}
		return text, e.IsError, true
	case KindRefused:
		return "error: " + e.Text, true, true
	case KindDefense:
		switch {
		case e.IsError: // a write whose key the filter removed
			return "error: " + e.Text, true, true
		case strings.HasPrefix(e.Text, "blocked: "): // a call a checker blocked
			return "error: blocked by " + e.Defense + ": " + strings.TrimPrefix(e.Text, "blocked: "), true, true
		}
	}
	return "", false, false
}
