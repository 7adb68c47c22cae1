package fake

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"time"
)

// Ollama /api/chat wire format: a streamed NDJSON reply.

type ollamaRequest struct {
	Model    string `json:"model"`
	Messages []struct {
		Role       string `json:"role"`
		Content    string `json:"content"`
		Thinking   string `json:"thinking"`
		ToolName   string `json:"tool_name"`
		ToolCallID string `json:"tool_call_id"`
		ToolCalls  []struct {
			ID       string `json:"id"`
			Function struct {
				Name      string          `json:"name"`
				Arguments json.RawMessage `json:"arguments"`
			} `json:"function"`
		} `json:"tool_calls"`
	} `json:"messages"`
	Tools []struct {
		Function struct {
			Name string `json:"name"`
		} `json:"function"`
	} `json:"tools"`
	Think json.RawMessage `json:"think"`
}

func decodeOllama(body []byte) (Conversation, error) {
	var r ollamaRequest
	if err := json.Unmarshal(body, &r); err != nil {
		return Conversation{}, err
	}
	think := strings.TrimSpace(string(r.Think))
	c := Conversation{Model: r.Model, Thinking: think != "" && think != "false" && think != "null"}
	for _, t := range r.Tools {
		c.Tools = append(c.Tools, t.Function.Name)
	}
	for _, m := range r.Messages {
		switch m.Role {
		case "system":
			c.System = m.Content
		case "user":
			c.Msgs = append(c.Msgs, Msg{Role: "user", Text: m.Content})
		case "tool":
			c.Msgs = append(c.Msgs, Msg{Role: "tool", Text: m.Content, CallID: m.ToolCallID, Tool: m.ToolName, IsError: strings.HasPrefix(m.Content, "error:")})
		case "assistant":
			am := Msg{Role: "assistant", Text: m.Content}
			for _, tc := range m.ToolCalls {
				am.Calls = append(am.Calls, Call{ID: tc.ID, Name: tc.Function.Name, Args: string(tc.Function.Arguments)})
			}
			c.Msgs = append(c.Msgs, am)
		default:
			return c, fmt.Errorf("unknown role %q", m.Role)
		}
	}
	return c, nil
}

// halves splits s in two at a space, as a token stream would.
func halves(s string) []string {
	if i := strings.Index(s[len(s)/2:], " "); i >= 0 && len(s) > 8 {
		cut := len(s)/2 + i
		return []string{s[:cut], s[cut:]}
	}
	return []string{s}
}

func encodeOllama(c *Conversation, t Turn) (reply, Usage) {
	var buf bytes.Buffer
	now := time.Now().UTC()
	enc := json.NewEncoder(&buf)
	chunk := func(msg map[string]any, done bool, extra map[string]any) {
		msg["role"] = "assistant"
		if _, ok := msg["content"]; !ok {
			msg["content"] = ""
		}
		doc := map[string]any{"model": c.Model, "created_at": now.Format(time.RFC3339Nano), "message": msg, "done": done}
		for k, v := range extra {
			doc[k] = v
		}
		now = now.Add(50 * time.Millisecond)
		enc.Encode(doc)
	}
	out := 0
	if c.Thinking && t.Thinking != "" {
		for _, part := range halves(t.Thinking) {
			chunk(map[string]any{"thinking": part}, false, nil)
		}
		out += tokens(t.Thinking)
	}
	if t.Narration != "" {
		for _, part := range halves(t.Narration) {
			chunk(map[string]any{"content": part}, false, nil)
		}
		out += tokens(t.Narration)
	}
	if len(t.Calls) > 0 {
		var calls []any
		for i, call := range t.Calls {
			args := json.RawMessage(call.Args)
			if !json.Valid(args) {
				args = json.RawMessage("{}")
			}
			calls = append(calls, map[string]any{"function": map[string]any{"index": i, "name": call.Name, "arguments": args}})
			out += tokens(call.Name + call.Args)
		}
		chunk(map[string]any{"tool_calls": calls}, false, nil)
	}
	u := Usage{Input: promptTokens(c), Output: out}
	chunk(map[string]any{}, true, map[string]any{
		"done_reason": ollamaDone(t), "total_duration": 4883583458, "load_duration": 1334875,
		"prompt_eval_count": u.Input, "prompt_eval_duration": 113000000, "eval_count": u.Output, "eval_duration": 4768000000,
	})
	return reply{contentType: "application/x-ndjson", body: buf.Bytes(), stream: true}, u
}
