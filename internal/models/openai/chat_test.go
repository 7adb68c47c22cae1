package openai

import (
	"context"
	"testing"

	"github.com/killchain/killchain/internal/agent"
	"github.com/killchain/killchain/internal/models/internal/fake"
)

func TestChatToolExchange(t *testing.T) {
	srv := fake.New(t, fake.Step{Body: fake.Fixture("openai_chat_turn1.json")}, fake.Step{Body: fake.Fixture("openai_chat_turn2.json")})
	seed := int64(7)
	d, err := NewChat(Options{Model: "gpt-4o-mini", BaseURL: srv.URL + "/v1", APIKey: "sk-test-chat", MaxTokens: 2048, Seed: &seed, Caller: testCaller()})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	req := firstRequest(t)
	r1, err := d.Generate(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	if len(r1.ToolCalls) != 1 {
		t.Fatalf("tool calls = %+v", r1.ToolCalls)
	}
	want(t, "call", r1.ToolCalls[0], agent.ToolCall{ID: "call_Qx7fa2aUk3bQ8rW1mZp0Lk9c", Name: "get_webpage", Arguments: `{"url":"https://news.example.com/quarterly"}`})
	want(t, "narration 1", r1.Narration, "")
	want(t, "thinking 1", r1.Thinking, "")
	want(t, "usage 1", r1.Usage, agent.Usage{Input: 182, Output: 24})

	r2, err := d.Generate(ctx, secondRequest(req, r1))
	if err != nil {
		t.Fatal(err)
	}
	want(t, "narration 2", r2.Narration, "The quarterly page reports revenue up 4% and a new office in Lyon.")
	want(t, "calls 2", len(r2.ToolCalls), 0)
	want(t, "usage 2", r2.Usage, agent.Usage{Input: 251, Output: 19, CachedInput: 128})

	reqs := srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("server saw %d requests, want 2", len(reqs))
	}
	first, second := reqs[0].Body, reqs[1].Body
	want(t, "path", reqs[0].Path, "/v1/chat/completions")
	want(t, "auth", reqs[0].Header.Get("Authorization"), "Bearer sk-test-chat")
	want(t, "model", field(first, "model").String(), "gpt-4o-mini")
	want(t, "system", field(first, "messages.0.role").String(), "system")
	want(t, "tool type", field(first, "tools.0.type").String(), "function")
	want(t, "tool name", field(first, "tools.0.function.name").String(), "get_webpage")
	want(t, "tool required", field(first, "tools.0.function.parameters.required.0").String(), "url")
	want(t, "tool count", len(field(first, "tools").Array()), 2)
	want(t, "temperature", field(first, "temperature").Raw, "0")
	want(t, "max tokens", field(first, "max_completion_tokens").Int(), int64(2048))
	want(t, "seed", field(first, "seed").Int(), int64(7))
	want(t, "assistant role", field(second, "messages.2.role").String(), "assistant")
	want(t, "echoed call id", field(second, "messages.2.tool_calls.0.id").String(), "call_Qx7fa2aUk3bQ8rW1mZp0Lk9c")
	want(t, "echoed args", field(second, "messages.2.tool_calls.0.function.arguments").String(), `{"url":"https://news.example.com/quarterly"}`)
	want(t, "tool role", field(second, "messages.3.role").String(), "tool")
	want(t, "tool result id", field(second, "messages.3.tool_call_id").String(), "call_Qx7fa2aUk3bQ8rW1mZp0Lk9c")
	want(t, "tool result", field(second, "messages.3.content").String(), "Quarterly: revenue up 4%. New office in Lyon.")
}

func TestChatInvalidArgumentsVerbatim(t *testing.T) {
	srv := fake.New(t, fake.Step{Body: fake.Fixture("openai_chat_badargs.json")})
	d, err := NewChat(Options{Model: "gpt-4o-mini", BaseURL: srv.URL, Caller: testCaller()})
	if err != nil {
		t.Fatal(err)
	}
	r, err := d.Generate(context.Background(), firstRequest(t))
	if err != nil {
		t.Fatal(err)
	}
	if len(r.ToolCalls) != 2 {
		t.Fatalf("calls = %+v", r.ToolCalls)
	}
	want(t, "bad args", r.ToolCalls[0].Arguments, `{"url": "https://news.example.com/quart`)
	want(t, "unknown tool", r.ToolCalls[1].Name, "launch_rocket")
	if srv.Requests()[0].Header.Get("Authorization") != "" {
		t.Error("a driver without a key sent an Authorization header")
	}
}

func TestSplitThink(t *testing.T) {
	tests := []struct {
		name, in, think, narr string
	}{
		{"none", "plain text", "", "plain text"},
		{"block", "<think>\nhidden\n</think>\n\nvisible", "hidden", "visible"},
		{"unclosed", "<think>still thinking", "still thinking", ""},
		{"later tag kept", "visible <think>x</think>", "", "visible <think>x</think>"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			th, n := SplitThink(tt.in)
			want(t, "thinking", th, tt.think)
			want(t, "narration", n, tt.narr)
		})
	}
}
