package ollama

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/tidwall/gjson"

	"github.com/killchain/killchain/internal/agent"
	"github.com/killchain/killchain/internal/models/internal/fake"
	"github.com/killchain/killchain/internal/models/limits"
)

func ndjson(name string) fake.Step {
	return fake.Step{Body: fake.Fixture(name), Stream: true, ContentType: "application/x-ndjson"}
}

func TestStreamedToolExchange(t *testing.T) {
	srv := fake.New(t, ndjson("ollama_turn1.ndjson"), ndjson("ollama_turn2.ndjson"))
	seed := int64(42)
	m, err := New(Options{Model: "qwen3:8b", Host: srv.URL, Temperature: 0, MaxTokens: 2048, Seed: &seed, Thinking: true, Caller: &limits.Caller{Policy: limits.Policy{Timeout: 5 * time.Second}}})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	req := fake.FirstRequest()
	r1, err := m.Generate(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	if len(r1.ToolCalls) != 1 {
		t.Fatalf("calls = %+v", r1.ToolCalls)
	}
	if got := r1.ToolCalls[0]; got != (agent.ToolCall{ID: "call_0_0", Name: "get_webpage", Arguments: `{"url":"https://news.example.com/quarterly"}`}) {
		t.Errorf("call = %+v", got)
	}
	if r1.Thinking != "The user wants a summary of the quarterly page, so I should fetch it first." || r1.Narration != "" {
		t.Errorf("thinking %q narration %q", r1.Thinking, r1.Narration)
	}
	if r1.Usage != (agent.Usage{Input: 205, Output: 61}) {
		t.Errorf("usage = %+v", r1.Usage)
	}
	r2, err := m.Generate(ctx, fake.SecondRequest(req, r1))
	if err != nil {
		t.Fatal(err)
	}
	if r2.Narration != "The quarterly page reports revenue up 4% and a new office in Lyon." || r2.Thinking != "Revenue up 4%, office in Lyon." || len(r2.ToolCalls) != 0 {
		t.Errorf("reply 2 = %+v", r2)
	}

	reqs := srv.Requests()
	first, second := reqs[0].Body, reqs[1].Body
	checks := []struct{ name, got, want string }{
		{"path", reqs[0].Path, "/api/chat"},
		{"model", gjson.GetBytes(first, "model").String(), "qwen3:8b"},
		{"think", gjson.GetBytes(first, "think").Raw, "true"},
		{"temperature", gjson.GetBytes(first, "options.temperature").Raw, "0"},
		{"num_predict", gjson.GetBytes(first, "options.num_predict").Raw, "2048"},
		{"seed", gjson.GetBytes(first, "options.seed").Raw, "42"},
		{"system", gjson.GetBytes(first, "messages.0.role").String(), "system"},
		{"tool", gjson.GetBytes(first, "tools.0.function.name").String(), "get_webpage"},
		{"tool schema", gjson.GetBytes(first, "tools.0.function.parameters.properties.url.type").String(), "string"},
		{"assistant call", gjson.GetBytes(second, "messages.2.tool_calls.0.function.name").String(), "get_webpage"},
		{"assistant args", gjson.GetBytes(second, "messages.2.tool_calls.0.function.arguments.url").String(), "https://news.example.com/quarterly"},
		{"tool role", gjson.GetBytes(second, "messages.3.role").String(), "tool"},
		{"tool name", gjson.GetBytes(second, "messages.3.tool_name").String(), "get_webpage"},
		{"tool content", gjson.GetBytes(second, "messages.3.content").String(), fake.ToolResult},
	}
	for _, c := range checks {
		if c.got != c.want {
			t.Errorf("%s = %q, want %q", c.name, c.got, c.want)
		}
	}
}

func TestStreamWithoutFinalChunkIsAnError(t *testing.T) {
	body := fake.Fixture("ollama_turn2.ndjson")
	cut := body[:len(body)/2]
	cut = cut[:lastNewline(cut)+1] // whole lines, but no done chunk
	srv := fake.New(t, fake.Step{Body: cut, Stream: true})
	m, err := New(Options{Model: "qwen3:8b", Host: srv.URL, Caller: &limits.Caller{Policy: limits.Policy{MaxRetries: 1, Sleep: func(context.Context, time.Duration) error { return nil }}}})
	if err != nil {
		t.Fatal(err)
	}
	_, err = m.Generate(context.Background(), fake.FirstRequest())
	if !errors.Is(err, limits.ErrProvider) {
		t.Fatalf("err = %v, want a provider error", err)
	}
	if n := len(srv.Requests()); n != 2 {
		t.Errorf("requests = %d, want 2 (retried once)", n)
	}
}

func lastNewline(s string) int {
	for i := len(s) - 1; i >= 0; i-- {
		if s[i] == '\n' {
			return i
		}
	}
	return -1
}

func TestHostURL(t *testing.T) {
	tests := []struct{ name, in, env, want string }{
		{"explicit", "http://gpu:11434", "", "http://gpu:11434"},
		{"bare host", "gpu", "", "http://gpu:11434"},
		{"env", "", "10.0.0.5:8080", "http://10.0.0.5:8080"},
		{"default", "", "", DefaultHost},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv("OLLAMA_HOST", tt.env)
			u, err := HostURL(tt.in)
			if err != nil || u.String() != tt.want {
				t.Errorf("HostURL(%q) = %v, %v; want %s", tt.in, u, err, tt.want)
			}
		})
	}
}
