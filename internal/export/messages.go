package export

import (
	"encoding/json"
	"strconv"
	"strings"

	"github.com/killchain/killchain/internal/agent"
	"github.com/killchain/killchain/internal/results"
)

// agentRef is how a message names the agent that sent or received it.
type agentRef struct {
	Role, Pos, Model string // Model: the Inspect model name
}

// conversation turns a run's transcript into Inspect chat messages, in the
// order the agents exchanged them: per agent a system message, the user
// prompt, then each step's assistant message (hidden thinking as a
// reasoning part, the visible narration as a text part, the calls as tool
// calls) followed by one tool message per result. Every message carries the
// agent's role, position ("a" writer, "b" reader) and step in its metadata,
// so the two agents of a relay stay apart. Each tool message holds what the
// agent was shown (agent.ToolMessage); a defense's note about a call that
// went on (what write_filter removed from a write) goes into the metadata
// of that call's tool message. The tools offered and the
// condition's text (already part of the system prompt) are not messages.
//
// usage is the tokens each agent's steps spent, by Inspect model name.
func conversation(entries []agent.Entry, agents []results.AgentInfo, model func(string) string) (msgs []Message, usage map[string]ModelUsage) {
	usage = map[string]ModelUsage{}
	refs := map[string]agentRef{}
	for _, a := range agents {
		refs[a.Position] = agentRef{Role: a.Role, Pos: a.Position, Model: model(a.Model)}
	}
	// The two agents of a relay number their calls alike; their ids carry
	// the agent's position so that each result meets its own call.
	callID := func(e agent.Entry) string {
		if len(agents) > 1 && e.CallID != "" {
			return e.Pos + "-" + e.CallID
		}
		return e.CallID
	}
	ref := func(e agent.Entry) agentRef {
		if r, ok := refs[e.Pos]; ok {
			return r
		}
		return agentRef{Role: e.Agent, Pos: e.Pos}
	}
	meta := func(e agent.Entry) map[string]any {
		r := ref(e)
		return map[string]any{"agent": r.Role, "position": r.Pos, "step": e.Step}
	}
	// cur is the assistant message of the step being read, if any.
	cur := -1
	curKey := ""
	notes := map[string][]map[string]any{} // defense notes by call id, until its tool message
	assistant := func(e agent.Entry) *Message {
		key := e.Pos + "/" + strconv.Itoa(e.Step)
		if cur < 0 || curKey != key {
			msgs = append(msgs, Message{Role: "assistant", Content: []Content{}, Model: ref(e).Model, Source: "generate", Metadata: meta(e)})
			cur, curKey = len(msgs)-1, key
		}
		return &msgs[cur]
	}
	for _, e := range entries {
		switch e.Kind {
		case agent.KindSystem:
			msgs = append(msgs, Message{Role: "system", Content: e.Text, Metadata: meta(e)})
			cur = -1
		case agent.KindPrompt:
			msgs = append(msgs, Message{Role: "user", Content: e.Text, Source: "input", Metadata: meta(e)})
			cur = -1
		case agent.KindThinking:
			m := assistant(e)
			red := e.Redacted
			m.Content = append(m.Content.([]Content), Content{Type: contentReasoning, Reasoning: e.Text, Redacted: &red})
		case agent.KindNarration:
			m := assistant(e)
			if e.Text != "" {
				m.Content = append(m.Content.([]Content), Content{Type: contentText, Text: e.Text})
			}
			if e.Usage != nil {
				r := ref(e)
				usage[r.Model] = usage[r.Model].add(tokens(*e.Usage))
			}
		case agent.KindToolCall:
			m := assistant(e)
			tc := toolCall(e)
			tc.ID = callID(e)
			m.ToolCalls = append(m.ToolCalls, tc)
		case agent.KindToolResult, agent.KindRefused, agent.KindDefense:
			text, isErr, ok := agent.ToolMessage(e)
			if !ok {
				notes[e.CallID] = append(notes[e.CallID], map[string]any{"defense": e.Defense, "note": e.Text})
				continue
			}
			t := Message{Role: "tool", Content: text, ToolCallID: callID(e), Function: e.Tool, Metadata: meta(e)}
			if isErr {
				t.Error = &ToolCallError{Type: "unknown", Message: strings.TrimPrefix(text, "error: ")}
				if e.Kind == agent.KindRefused {
					t.Error.Type = "permission"
				}
			}
			if e.Kind == agent.KindDefense {
				t.Metadata["defense"] = e.Defense
			}
			if n := notes[e.CallID]; len(n) > 0 {
				t.Metadata["defense_notes"] = n
				delete(notes, e.CallID)
			}
			msgs = append(msgs, t)
		}
	}
	// An assistant message with nothing visible is written as an empty
	// string, as Inspect writes one.
	for i := range msgs {
		if c, ok := msgs[i].Content.([]Content); ok && len(c) == 0 {
			msgs[i].Content = ""
		}
	}
	return msgs, usage
}

// toolCall is a transcript's call with its arguments decoded; arguments
// that are not a JSON object are kept, raw, as the call's parse error.
func toolCall(e agent.Entry) ToolCall {
	tc := ToolCall{ID: e.CallID, Function: e.Tool, Arguments: map[string]any{}, Type: "function"}
	if e.Args == "" {
		return tc
	}
	var obj map[string]any
	if err := json.Unmarshal([]byte(e.Args), &obj); err != nil || obj == nil {
		tc.ParseError = "arguments are not a JSON object: " + e.Args
		return tc
	}
	tc.Arguments = obj
	return tc
}

// tokens is an agent step's usage as Inspect counts it.
func tokens(u agent.Usage) ModelUsage {
	r := u.Reasoning
	m := ModelUsage{InputTokens: u.Input, OutputTokens: u.Output, TotalTokens: u.Input + u.Output, ReasoningTokens: &r}
	if u.CachedInput > 0 {
		n := u.CachedInput
		m.CacheRead = &n
	}
	if u.CacheWrite > 0 {
		n := u.CacheWrite
		m.CacheWrite = &n
	}
	return m
}
