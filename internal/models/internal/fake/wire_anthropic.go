package fake

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
)

// Anthropic Messages wire format.

type anthropicBlock struct {
	Type      string          `json:"type"`
	Text      string          `json:"text"`
	Thinking  string          `json:"thinking"`
	Signature string          `json:"signature"`
	Data      string          `json:"data"`
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Input     json.RawMessage `json:"input"`
	ToolUseID string          `json:"tool_use_id"`
	Content   json.RawMessage `json:"content"`
	IsError   bool            `json:"is_error"`
}

type anthropicRequest struct {
	Model     string          `json:"model"`
	MaxTokens int             `json:"max_tokens"`
	System    json.RawMessage `json:"system"`
	Messages  []struct {
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
	} `json:"messages"`
	Tools []struct {
		Name string `json:"name"`
	} `json:"tools"`
	Thinking *struct {
		Type         string `json:"type"`
		BudgetTokens int    `json:"budget_tokens"`
	} `json:"thinking"`
	Temperature *float64 `json:"temperature"`
}

func (r *anthropicRequest) thinking() bool { return r.Thinking != nil && r.Thinking.Type == "enabled" }

// blocks reads a content that is a string or an array of blocks.
func blocks(raw json.RawMessage) []anthropicBlock {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return []anthropicBlock{{Type: "text", Text: s}}
	}
	var bs []anthropicBlock
	json.Unmarshal(raw, &bs)
	return bs
}

func decodeAnthropic(body []byte) (Conversation, error) {
	var r anthropicRequest
	if err := json.Unmarshal(body, &r); err != nil {
		return Conversation{}, err
	}
	c := Conversation{Model: r.Model, Thinking: r.thinking()}
	for _, b := range blocks(r.System) {
		c.System += b.Text
	}
	for _, t := range r.Tools {
		c.Tools = append(c.Tools, t.Name)
	}
	for _, m := range r.Messages {
		switch m.Role {
		case "user":
			for _, b := range blocks(m.Content) {
				switch b.Type {
				case "tool_result":
					var t strings.Builder
					for _, x := range blocks(b.Content) {
						t.WriteString(x.Text)
					}
					c.Msgs = append(c.Msgs, Msg{Role: "tool", Text: t.String(), CallID: b.ToolUseID, IsError: b.IsError})
				case "text":
					c.Msgs = append(c.Msgs, Msg{Role: "user", Text: b.Text})
				}
			}
		case "assistant":
			am := Msg{Role: "assistant"}
			for _, b := range blocks(m.Content) {
				switch b.Type {
				case "text":
					am.Text += b.Text
				case "tool_use":
					am.Calls = append(am.Calls, Call{ID: b.ID, Name: b.Name, Args: string(b.Input)})
				}
			}
			c.Msgs = append(c.Msgs, am)
		default:
			return c, fmt.Errorf("messages: unexpected role %q", m.Role)
		}
	}
	return c, nil
}

// sign is the fake's thinking signature: it verifies that a thinking
// block comes back exactly as it was sent.
func sign(thinking string) string {
	return base64.StdEncoding.EncodeToString([]byte("sig1:" + id("thinking:"+thinking, 0)[:48]))
}

// validateAnthropic enforces the Messages API's rules: the thinking budget
// fits max_tokens and temperature stays unset with thinking; every
// tool_use is answered by a tool_result in the next message; with thinking
// on, the assistant turn a tool_result answers starts with its thinking,
// whose signature must verify, and redacted thinking comes back as issued.
func (p *Provider) validateAnthropic(body []byte) string {
	var r anthropicRequest
	if err := json.Unmarshal(body, &r); err != nil {
		return err.Error()
	}
	if r.thinking() {
		if r.Thinking.BudgetTokens < 1024 {
			return "thinking.enabled.budget_tokens: Input should be greater than or equal to 1024"
		}
		if r.MaxTokens <= r.Thinking.BudgetTokens {
			return "`max_tokens` must be greater than `thinking.budget_tokens`."
		}
		if r.Temperature != nil && *r.Temperature != 1 {
			return "`temperature` may only be set to 1 when thinking is enabled."
		}
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	var pending []string
	for i, m := range r.Messages {
		bs := blocks(m.Content)
		if m.Role == "user" {
			answered := map[string]bool{}
			for j, b := range bs {
				if b.Type != "tool_result" {
					continue
				}
				if !slices.Contains(pending, b.ToolUseID) {
					return fmt.Sprintf("messages.%d.content.%d: unexpected `tool_use_id` found in `tool_result` blocks: %s. Each `tool_result` block must have a corresponding `tool_use` block in the previous message.", i, j, b.ToolUseID)
				}
				answered[b.ToolUseID] = true
			}
			for _, id := range pending {
				if !answered[id] {
					return fmt.Sprintf("messages.%d: `tool_use` ids were found without `tool_result` blocks immediately after: %s. Each `tool_use` block must have a corresponding `tool_result` block in the next message.", i, id)
				}
			}
			pending = nil
			continue
		}
		pending = nil
		for j, b := range bs {
			switch b.Type {
			case "tool_use":
				pending = append(pending, b.ID)
			case "thinking":
				if b.Signature != sign(b.Thinking) {
					return fmt.Sprintf("messages.%d.content.%d: Invalid `signature` in `thinking` block", i, j)
				}
			case "redacted_thinking":
				if _, ok := p.issued[b.Data]; !ok {
					return fmt.Sprintf("messages.%d.content.%d: Invalid `data` in `redacted_thinking` block", i, j)
				}
			}
		}
		last := i == len(r.Messages)-2
		if r.thinking() && last && len(pending) > 0 && len(bs) > 0 && bs[0].Type != "thinking" && bs[0].Type != "redacted_thinking" {
			return fmt.Sprintf("messages.%d.content.0.type: Expected `thinking` or `redacted_thinking`, but found `%s`. When `thinking` is enabled, a final `assistant` message must start with a thinking block (preceeding the lastmost set of `tool_use` and `tool_result` blocks).", i, bs[0].Type)
		}
	}
	return ""
}

func (p *Provider) encodeAnthropic(c *Conversation, t Turn) (reply, Usage) {
	seed := digest(c)
	var content []any
	u := Usage{Input: promptTokens(c)}
	out := 0
	if c.Thinking {
		content = append(content, map[string]any{"type": "thinking", "thinking": t.Thinking, "signature": sign(t.Thinking)})
		u.Reasoning = tokens(t.Thinking)
		first := true
		for _, m := range c.Msgs {
			if m.Role == "assistant" {
				first = false
			}
		}
		if first {
			// Now and then the safety systems encrypt part of the thinking.
			data := "EmwKAhgBEgy" + base64.StdEncoding.EncodeToString([]byte(id(seed, 70)[:36]))
			p.mu.Lock()
			p.issued[data] = "redacted"
			p.mu.Unlock()
			content = append(content, map[string]any{"type": "redacted_thinking", "data": data})
			u.Reasoning += 24
		}
		out += u.Reasoning
	}
	if t.Narration != "" {
		content = append(content, map[string]any{"type": "text", "text": t.Narration})
		out += tokens(t.Narration)
	}
	for i, call := range t.Calls {
		var input any = json.RawMessage(call.Args)
		if !json.Valid([]byte(call.Args)) {
			input = call.Args
		}
		content = append(content, map[string]any{"type": "tool_use", "id": "toolu_01" + id(seed, i)[:22], "name": call.Name, "input": input})
		out += tokens(call.Name + call.Args)
	}
	u.Output = out
	u.Cached = cachedTokens(c)
	stop := anthropicStop(t)
	doc := map[string]any{
		"id": "msg_01" + id(seed, 71)[:22], "type": "message", "role": "assistant", "model": c.Model,
		"content": content, "stop_reason": stop, "stop_sequence": nil,
		"usage": map[string]any{
			// input_tokens leaves the cache reads out, as Anthropic's does.
			"input_tokens": u.Input - u.Cached, "cache_creation_input_tokens": 0, "cache_read_input_tokens": u.Cached,
			"output_tokens": u.Output, "output_tokens_details": map[string]any{"thinking_tokens": u.Reasoning},
			"service_tier": "standard",
		},
	}
	b, _ := json.Marshal(doc)
	return reply{contentType: "application/json", body: b}, u
}
