package fake

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"
)

// Chat Completions wire format (OpenAI, DeepSeek, vLLM and other
// OpenAI-compatible servers).

type chatMessage struct {
	Role             string          `json:"role"`
	Content          json.RawMessage `json:"content"`
	ToolCallID       string          `json:"tool_call_id"`
	ReasoningContent *string         `json:"reasoning_content"`
	ToolCalls        []struct {
		ID       string `json:"id"`
		Type     string `json:"type"`
		Function struct {
			Name      string `json:"name"`
			Arguments string `json:"arguments"`
		} `json:"function"`
	} `json:"tool_calls"`
}

type chatRequest struct {
	Model    string        `json:"model"`
	Messages []chatMessage `json:"messages"`
	Tools    []struct {
		Type     string `json:"type"`
		Function struct {
			Name string `json:"name"`
		} `json:"function"`
	} `json:"tools"`
	Thinking *struct {
		Type string `json:"type"`
	} `json:"thinking"`
	ChatTemplateKwargs map[string]any `json:"chat_template_kwargs"`
}

// text reads a content that is a string or an array of text parts.
func text(raw json.RawMessage) string {
	if len(raw) == 0 || string(raw) == "null" {
		return ""
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var parts []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if json.Unmarshal(raw, &parts) == nil {
		var b strings.Builder
		for _, p := range parts {
			b.WriteString(p.Text)
		}
		return b.String()
	}
	return string(raw)
}

func decodeChat(body []byte) (Conversation, error) {
	var r chatRequest
	if err := json.Unmarshal(body, &r); err != nil {
		return Conversation{}, err
	}
	c := Conversation{Model: r.Model}
	c.Thinking = strings.Contains(r.Model, "reasoner") || r.Thinking != nil && r.Thinking.Type == "enabled"
	if on, ok := r.ChatTemplateKwargs["enable_thinking"].(bool); ok && on {
		c.Thinking = true
	}
	for _, t := range r.Tools {
		c.Tools = append(c.Tools, t.Function.Name)
	}
	for _, m := range r.Messages {
		switch m.Role {
		case "system", "developer":
			c.System = text(m.Content)
		case "user":
			c.Msgs = append(c.Msgs, Msg{Role: "user", Text: text(m.Content)})
		case "tool":
			t := text(m.Content)
			c.Msgs = append(c.Msgs, Msg{Role: "tool", Text: t, CallID: m.ToolCallID, IsError: strings.HasPrefix(t, "error:")})
		case "assistant":
			am := Msg{Role: "assistant", Text: text(m.Content)}
			for _, tc := range m.ToolCalls {
				am.Calls = append(am.Calls, Call{ID: tc.ID, Name: tc.Function.Name, Args: tc.Function.Arguments})
			}
			c.Msgs = append(c.Msgs, am)
		default:
			return c, fmt.Errorf("unknown role %q", m.Role)
		}
	}
	return c, nil
}

// validateChat enforces the pairing of tool calls and tool messages that
// the Chat Completions API requires, and DeepSeek's rule that
// reasoning_content is never sent back.
func validateChat(body []byte, k Kind) string {
	var r chatRequest
	if err := json.Unmarshal(body, &r); err != nil {
		return err.Error()
	}
	var open []string // call ids still waiting for a tool message
	for i, m := range r.Messages {
		if m.Role == "tool" {
			at := -1
			for j, id := range open {
				if id == m.ToolCallID {
					at = j
				}
			}
			if at < 0 {
				return fmt.Sprintf("Invalid parameter: messages[%d] with role 'tool' must be a response to a preceeding message with 'tool_calls'.", i)
			}
			open = append(open[:at], open[at+1:]...)
			continue
		}
		if len(open) > 0 {
			return fmt.Sprintf("An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: %s", strings.Join(open, ", "))
		}
		if m.Role == "assistant" {
			if k == DeepSeek && m.ReasoningContent != nil {
				return fmt.Sprintf("messages[%d]: reasoning_content must not be sent back in input messages; remove it", i)
			}
			for _, tc := range m.ToolCalls {
				open = append(open, tc.ID)
			}
		}
	}
	return ""
}

func digest(c *Conversation) string {
	last := ""
	if n := len(c.Msgs); n > 0 {
		last = c.Msgs[n-1].Text
	}
	return fmt.Sprintf("%s|%d|%s", c.Model, len(c.Msgs), last)
}

func encodeChat(k Kind, c *Conversation, t Turn) (reply, Usage) {
	seed := digest(c)
	msg := map[string]any{"role": "assistant", "content": nil, "refusal": nil}
	switch {
	case t.Stop == StopRefusal && k == OpenAIChat:
		msg["refusal"] = t.Narration
	case t.Narration != "":
		msg["content"] = t.Narration
	}
	out := tokens(t.Narration)
	var calls []map[string]any
	for i, call := range t.Calls {
		calls = append(calls, map[string]any{
			"id": "call_" + id(seed, i)[:24], "type": "function",
			"function": map[string]any{"name": call.Name, "arguments": call.Args},
		})
		out += tokens(call.Name + call.Args)
	}
	if len(calls) > 0 {
		msg["tool_calls"] = calls
	}
	u := Usage{Input: promptTokens(c)}
	details := map[string]any{"reasoning_tokens": 0}
	if c.Thinking && t.Thinking != "" {
		switch k {
		case DeepSeek:
			msg["reasoning_content"] = t.Thinking
			u.Reasoning = tokens(t.Thinking)
			out += u.Reasoning
			details["reasoning_tokens"] = u.Reasoning
		case Compatible:
			msg["reasoning"] = t.Thinking // vLLM's reasoning parser; no token count
			out += tokens(t.Thinking)
		}
	}
	u.Output = out
	finish := chatFinish(k, t)
	usage := map[string]any{"prompt_tokens": u.Input, "completion_tokens": u.Output, "total_tokens": u.Input + u.Output}
	if k != Compatible {
		u.Cached = cachedTokens(c)
		usage["completion_tokens_details"] = details
		usage["prompt_tokens_details"] = map[string]any{"cached_tokens": u.Cached}
		if k == DeepSeek {
			// DeepSeek's own fields for its context cache.
			usage["prompt_cache_hit_tokens"] = u.Cached
			usage["prompt_cache_miss_tokens"] = u.Input - u.Cached
		}
	}
	prefix := "chatcmpl-"
	if k == DeepSeek {
		prefix = ""
	}
	doc := map[string]any{
		"id": prefix + id(seed, 99)[:32], "object": "chat.completion", "created": time.Now().Unix(), "model": c.Model,
		"choices": []any{map[string]any{"index": 0, "message": msg, "logprobs": nil, "finish_reason": finish}},
		"usage":   usage, "system_fingerprint": "fp_fake" + id(c.Model, 0)[:6],
	}
	b, _ := json.Marshal(doc)
	return reply{contentType: "application/json", body: b}, u
}
