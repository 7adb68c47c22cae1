package models

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/killchain/killchain/internal/models/internal/chat"
	"github.com/killchain/killchain/internal/models/internal/fake"
)

// TestFakesEnforceProviderRules proves the end-to-end fakes can fail a
// driver: like the real APIs they refuse a tool-use turn whose signed
// thinking was altered, a function call replayed without its encrypted
// reasoning, DeepSeek reasoning_content sent back, and a tool message that
// answers no call.
func TestFakesEnforceProviderRules(t *testing.T) {
	setKeys(t)
	tamper := func(kind string) func(json.RawMessage) json.RawMessage {
		return func(raw json.RawMessage) json.RawMessage {
			var out []json.RawMessage
			for _, it := range chat.Decode(kind, raw) {
				out = append(out, json.RawMessage(strings.Replace(string(it), "fetch it first", "fetch it later", 1)))
			}
			return chat.Encode(kind, out)
		}
	}
	drop := func(json.RawMessage) json.RawMessage { return nil }
	dropReasoning := func(raw json.RawMessage) json.RawMessage {
		var out []json.RawMessage
		for _, it := range chat.Decode("openai-responses", raw) {
			if !strings.Contains(string(it), `"type":"reasoning"`) {
				out = append(out, it)
			}
		}
		return chat.Encode("openai-responses", out)
	}
	tamperEnc := func(raw json.RawMessage) json.RawMessage {
		return json.RawMessage(strings.Replace(string(raw), `"encrypted_content":"gAAAAAB`, `"encrypted_content":"gAAAAAC`, 1))
	}
	keep := func(raw json.RawMessage) json.RawMessage { return raw }
	tests := []struct {
		name   string
		cfg    Config
		kind   fake.Kind
		state  func(json.RawMessage) json.RawMessage
		reject string // "" when the second turn must succeed
	}{
		{"anthropic replays signed thinking", Config{Name: "c", Provider: Anthropic, Model: "claude-sonnet-4-5", Thinking: true}, fake.Anthropic, keep, ""},
		{"anthropic altered thinking", Config{Name: "c", Provider: Anthropic, Model: "claude-sonnet-4-5", Thinking: true}, fake.Anthropic, tamper("anthropic"), "Invalid `signature`"},
		{"anthropic thinking dropped", Config{Name: "c", Provider: Anthropic, Model: "claude-sonnet-4-5", Thinking: true}, fake.Anthropic, drop, "must start with a thinking block"},
		{"responses replays encrypted reasoning", Config{Name: "r", Provider: OpenAI, API: "responses", Model: "gpt-5-mini", Thinking: true}, fake.Responses, keep, ""},
		{"responses altered reasoning", Config{Name: "r", Provider: OpenAI, API: "responses", Model: "gpt-5-mini", Thinking: true}, fake.Responses, tamperEnc, "could not be verified"},
		{"responses reasoning dropped", Config{Name: "r", Provider: OpenAI, API: "responses", Model: "gpt-5-mini", Thinking: true}, fake.Responses, dropReasoning, "without its required 'reasoning' item"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := fake.NewProvider(t, tt.kind, fake.Options{})
			m, err := New(point(tt.cfg, srv.URL), nil, WithPolicy(noRetry))
			if err != nil {
				t.Fatal(err)
			}
			req := fake.FirstRequest()
			r, err := m.Generate(context.Background(), req)
			if err != nil || len(r.ToolCalls) == 0 || r.Thinking == "" {
				t.Fatalf("first turn: %+v, %v", r, err)
			}
			r.Provider = tt.state(r.Provider)
			_, err = m.Generate(context.Background(), fake.SecondRequest(req, r))
			ex := srv.Exchanges()
			last := ex[len(ex)-1]
			if tt.reject == "" {
				if err != nil {
					t.Fatalf("second turn refused: %v (%s)", err, last.Reject)
				}
				return
			}
			if !errors.Is(err, ErrProvider) || !strings.Contains(last.Reject, tt.reject) {
				t.Errorf("err %v, fake said %q, want a refusal saying %q", err, last.Reject, tt.reject)
			}
		})
	}

	raw := []struct {
		name   string
		kind   fake.Kind
		body   string
		reject string
	}{
		{"deepseek reasoning_content sent back", fake.DeepSeek,
			`{"model":"deepseek-reasoner","messages":[{"role":"user","content":"hi"},{"role":"assistant","content":"hello","reasoning_content":"greet"},{"role":"user","content":"again"}]}`,
			"reasoning_content must not be sent back"},
		{"tool message without a call", fake.OpenAIChat,
			`{"model":"gpt-4o-mini","messages":[{"role":"user","content":"hi"},{"role":"tool","tool_call_id":"call_x","content":"page"}]}`,
			"must be a response to a preceeding message with 'tool_calls'"},
		{"chat call left unanswered", fake.Compatible,
			`{"model":"q","messages":[{"role":"user","content":"hi"},{"role":"assistant","content":null,"tool_calls":[{"id":"call_1","type":"function","function":{"name":"get_webpage","arguments":"{}"}}]},{"role":"user","content":"and?"}]}`,
			"did not have response messages: call_1"},
	}
	for _, tt := range raw {
		t.Run(tt.name, func(t *testing.T) {
			srv := fake.NewProvider(t, tt.kind, fake.Options{})
			resp, err := http.Post(srv.URL+"/v1/chat/completions", "application/json", bytes.NewBufferString(tt.body))
			if err != nil {
				t.Fatal(err)
			}
			var doc struct {
				Error struct{ Message string } `json:"error"`
			}
			json.NewDecoder(resp.Body).Decode(&doc)
			resp.Body.Close()
			if resp.StatusCode != 400 || !strings.Contains(doc.Error.Message, tt.reject) {
				t.Errorf("status %d message %q, want 400 saying %q", resp.StatusCode, doc.Error.Message, tt.reject)
			}
		})
	}
}
