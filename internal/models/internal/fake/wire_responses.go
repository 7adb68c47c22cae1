package fake

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"
)

// OpenAI Responses API wire format.

type responsesItem struct {
	Type             string          `json:"type"`
	ID               string          `json:"id"`
	Role             string          `json:"role"`
	Content          json.RawMessage `json:"content"`
	CallID           string          `json:"call_id"`
	Name             string          `json:"name"`
	Arguments        string          `json:"arguments"`
	Output           json.RawMessage `json:"output"`
	EncryptedContent *string         `json:"encrypted_content"`
	Summary          []struct {
		Text string `json:"text"`
	} `json:"summary"`
}

type responsesRequest struct {
	Model        string          `json:"model"`
	Instructions string          `json:"instructions"`
	Input        []responsesItem `json:"input"`
	Include      []string        `json:"include"`
	Store        *bool           `json:"store"`
	Reasoning    *struct {
		Effort  string `json:"effort"`
		Summary string `json:"summary"`
	} `json:"reasoning"`
	Tools []struct {
		Type string `json:"type"`
		Name string `json:"name"`
	} `json:"tools"`
}

func (r *responsesRequest) encrypted() bool {
	return slices.Contains(r.Include, "reasoning.encrypted_content")
}

func decodeResponses(body []byte) (Conversation, error) {
	var r responsesRequest
	if err := json.Unmarshal(body, &r); err != nil {
		return Conversation{}, err
	}
	c := Conversation{Model: r.Model, System: r.Instructions, Thinking: r.Reasoning != nil}
	for _, t := range r.Tools {
		c.Tools = append(c.Tools, t.Name)
	}
	var cur *Msg // the assistant turn being rebuilt from its items
	flush := func() {
		if cur != nil {
			c.Msgs = append(c.Msgs, *cur)
			cur = nil
		}
	}
	assistant := func() *Msg {
		if cur == nil {
			cur = &Msg{Role: "assistant"}
		}
		return cur
	}
	for _, it := range r.Input {
		typ := it.Type
		if typ == "" && it.Role != "" {
			typ = "message"
		}
		switch {
		case typ == "message" && it.Role != "assistant":
			flush()
			c.Msgs = append(c.Msgs, Msg{Role: "user", Text: text(it.Content)})
		case typ == "message":
			assistant().Text += outputText(it.Content)
		case typ == "reasoning":
			assistant()
		case typ == "function_call":
			a := assistant()
			a.Calls = append(a.Calls, Call{ID: it.CallID, Name: it.Name, Args: it.Arguments})
		case typ == "function_call_output":
			flush()
			t := text(it.Output)
			c.Msgs = append(c.Msgs, Msg{Role: "tool", Text: t, CallID: it.CallID, IsError: strings.HasPrefix(t, "error:")})
		default:
			return c, fmt.Errorf("unknown input item type %q", typ)
		}
	}
	flush()
	return c, nil
}

func outputText(raw json.RawMessage) string {
	var parts []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if json.Unmarshal(raw, &parts) != nil {
		return text(raw)
	}
	var b strings.Builder
	for _, p := range parts {
		b.WriteString(p.Text)
	}
	return b.String()
}

// validateResponses enforces what a stateless (store=false) Responses
// conversation must carry: every function_call_output answers an earlier
// function_call, and every function call the fake issued beside a
// reasoning item comes back preceded by that reasoning item with its
// encrypted content unchanged.
func (p *Provider) validateResponses(body []byte) string {
	var r responsesRequest
	if err := json.Unmarshal(body, &r); err != nil {
		return err.Error()
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	calls := map[string]bool{}
	seen := map[string]string{} // reasoning ids given → encrypted content
	for _, it := range r.Input {
		switch it.Type {
		case "reasoning":
			enc := ""
			if it.EncryptedContent != nil {
				enc = *it.EncryptedContent
			}
			if want, ok := p.issued[it.ID]; ok && r.encrypted() && enc != want {
				return fmt.Sprintf("The encrypted content for item %s could not be verified.", it.ID)
			}
			seen[it.ID] = enc
		case "function_call":
			calls[it.CallID] = true
			if rs, ok := p.issued[it.ID]; ok && r.encrypted() {
				if _, ok := seen[rs]; !ok {
					return fmt.Sprintf("Item '%s' of type 'function_call' was provided without its required 'reasoning' item: '%s'.", it.ID, rs)
				}
			}
		case "function_call_output":
			if !calls[it.CallID] {
				return fmt.Sprintf("No tool call found for function call output with call_id %s.", it.CallID)
			}
		}
	}
	return ""
}

func (p *Provider) encodeResponses(c *Conversation, t Turn) (reply, Usage) {
	seed := digest(c)
	var output []any
	u := Usage{Input: promptTokens(c)}
	rsID := ""
	if c.Thinking {
		rsID = "rs_" + id(seed, 50)[:40]
		u.Reasoning = tokens(t.Thinking) + 16
		item := map[string]any{"id": rsID, "type": "reasoning", "summary": []any{}}
		if t.Thinking != "" {
			item["summary"] = []any{map[string]any{"type": "summary_text", "text": t.Thinking}}
		}
		enc := "gAAAAAB" + base64.RawURLEncoding.EncodeToString([]byte("sealed:"+id(seed+t.Thinking, 51)))
		item["encrypted_content"] = enc
		p.mu.Lock()
		p.issued[rsID] = enc
		p.mu.Unlock()
		output = append(output, item)
	}
	out := u.Reasoning
	status, incomplete := responsesStatus(t)
	if t.Narration != "" {
		part := map[string]any{"type": "output_text", "annotations": []any{}, "logprobs": []any{}, "text": t.Narration}
		if t.Stop == StopRefusal {
			part = map[string]any{"type": "refusal", "refusal": t.Narration}
		}
		output = append(output, map[string]any{
			"id": "msg_" + id(seed, 52)[:40], "type": "message", "status": status, "role": "assistant",
			"content": []any{part},
		})
		out += tokens(t.Narration)
	}
	for i, call := range t.Calls {
		fcID := "fc_" + id(seed, 60+i)[:40]
		output = append(output, map[string]any{
			"id": fcID, "type": "function_call", "status": "completed",
			"call_id": "call_" + id(seed, i)[:24], "name": call.Name, "arguments": call.Args,
		})
		out += tokens(call.Name + call.Args)
		if rsID != "" {
			p.mu.Lock()
			p.issued[fcID] = rsID
			p.mu.Unlock()
		}
	}
	u.Output = out
	u.Cached = cachedTokens(c)
	doc := map[string]any{
		"id": "resp_" + id(seed, 53)[:32], "object": "response", "created_at": time.Now().Unix(), "status": status,
		"error": nil, "incomplete_details": incomplete, "model": c.Model, "output": output, "parallel_tool_calls": true,
		"store": false, "tool_choice": "auto", "tools": []any{}, "metadata": map[string]any{},
		"usage": map[string]any{
			"input_tokens": u.Input, "input_tokens_details": map[string]any{"cached_tokens": u.Cached},
			"output_tokens": u.Output, "output_tokens_details": map[string]any{"reasoning_tokens": u.Reasoning},
			"total_tokens": u.Input + u.Output,
		},
	}
	b, _ := json.Marshal(doc)
	return reply{contentType: "application/json", body: b}, u
}
