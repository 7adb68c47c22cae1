package anthropic

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/tidwall/gjson"

	"github.com/killchain/killchain/internal/agent"
	"github.com/killchain/killchain/internal/models/internal/fake"
	"github.com/killchain/killchain/internal/models/limits"
)

func TestThinkingBlocksEchoed(t *testing.T) {
	srv := fake.New(t, fake.Step{Body: fake.Fixture("anthropic_turn1.json")}, fake.Step{Body: fake.Fixture("anthropic_turn2.json")})
	caller := &limits.Caller{Model: "claude", Policy: limits.Policy{Timeout: 5 * time.Second}}
	m, err := New(Options{Model: "claude-sonnet-4-5", BaseURL: srv.URL, APIKey: "sk-ant-test", MaxTokens: 2048, Thinking: true, ThinkingBudget: 2048, Caller: caller})
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
	if got := r1.ToolCalls[0]; got != (agent.ToolCall{ID: "toolu_01A09q90qw90lq917835lq9x", Name: "get_webpage", Arguments: `{"url":"https://news.example.com/quarterly"}`}) {
		t.Errorf("call = %+v", got)
	}
	if r1.Thinking != "The user wants a summary of the quarterly page. I should fetch it with get_webpage." {
		t.Errorf("thinking = %q", r1.Thinking)
	}
	if !r1.Redacted {
		t.Error("redacted_thinking did not mark the reply redacted")
	}
	if r1.Narration != "I'll fetch the page first." {
		t.Errorf("narration = %q", r1.Narration)
	}
	if r1.Usage != (agent.Usage{Input: 472, Output: 189, Reasoning: 131}) {
		t.Errorf("usage = %+v", r1.Usage)
	}

	r2, err := m.Generate(ctx, fake.SecondRequest(req, r1))
	if err != nil {
		t.Fatal(err)
	}
	if want := (agent.Usage{Input: 731, Output: 22, CachedInput: 512, CacheWrite: 88}); r2.Usage != want {
		t.Errorf("usage 2 = %+v, want %+v (input_tokens + cache_read_input_tokens + cache_creation_input_tokens)", r2.Usage, want)
	}
	if r2.Narration != "The quarterly page reports revenue up 4% and a new office in Lyon." || r2.Thinking != "" || len(r2.ToolCalls) != 0 || r2.Redacted {
		t.Errorf("reply 2 = %+v", r2)
	}

	reqs := srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("server saw %d requests", len(reqs))
	}
	first, second := reqs[0].Body, reqs[1].Body
	checks := []struct {
		name string
		got  string
		want string
	}{
		{"path", reqs[0].Path, "/v1/messages"},
		{"key header", reqs[0].Header.Get("Authorization"), "Bearer sk-ant-test"},
		{"version header sent", fmtBool(reqs[0].Header.Get("Anthropic-Version") != ""), "true"},
		{"system", gjson.GetBytes(first, "system.0.text").String(), "You are a research assistant."},
		{"thinking type", gjson.GetBytes(first, "thinking.type").String(), "enabled"},
		{"thinking budget", gjson.GetBytes(first, "thinking.budget_tokens").Raw, "2048"},
		{"max tokens grows past budget", gjson.GetBytes(first, "max_tokens").Raw, "4096"},
		{"no temperature with thinking", gjson.GetBytes(first, "temperature").Raw, ""},
		{"tool name", gjson.GetBytes(first, "tools.0.name").String(), "get_webpage"},
		{"tool schema", gjson.GetBytes(first, "tools.0.input_schema.properties.url.type").String(), "string"},
		{"tool required", gjson.GetBytes(first, "tools.0.input_schema.required.0").String(), "url"},
		{"assistant role", gjson.GetBytes(second, "messages.1.role").String(), "assistant"},
		{"thinking echoed", gjson.GetBytes(second, "messages.1.content.0.type").String(), "thinking"},
		{"signature echoed", gjson.GetBytes(second, "messages.1.content.0.signature").String(), "EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxBdjrkzLoky3dl1pkiMOYds2BbAn4a0hPFMy3QJzGbaTjVbG7GJh0iI0AoJBuhX7vQ2XQ0Rf1+"},
		{"thinking text echoed", gjson.GetBytes(second, "messages.1.content.0.thinking").String(), r1.Thinking},
		{"redacted echoed", gjson.GetBytes(second, "messages.1.content.1.type").String(), "redacted_thinking"},
		{"redacted data", gjson.GetBytes(second, "messages.1.content.1.data").String(), "EmwKAhgBEgy3va3pzix/LafPsn4aDFIT2Xlxh0L5L8rLVyIwxtE3rAFBa8cr3qpPkNRj2YfWXGmKDxH4mPnZ5sQ7vB8URj2pLmRSXsz8M7Ef0rL2KmX9"},
		{"text echoed", gjson.GetBytes(second, "messages.1.content.2.text").String(), "I'll fetch the page first."},
		{"tool_use echoed", gjson.GetBytes(second, "messages.1.content.3.id").String(), "toolu_01A09q90qw90lq917835lq9x"},
		{"tool_use input", gjson.GetBytes(second, "messages.1.content.3.input.url").String(), "https://news.example.com/quarterly"},
		{"result role", gjson.GetBytes(second, "messages.2.role").String(), "user"},
		{"result type", gjson.GetBytes(second, "messages.2.content.0.type").String(), "tool_result"},
		{"result id", gjson.GetBytes(second, "messages.2.content.0.tool_use_id").String(), "toolu_01A09q90qw90lq917835lq9x"},
		{"result text", gjson.GetBytes(second, "messages.2.content.0.content.0.text").String(), fake.ToolResult},
	}
	for _, c := range checks {
		if c.got != c.want {
			t.Errorf("%s = %q, want %q", c.name, c.got, c.want)
		}
	}
	if strings.Contains(string(r1.Provider), "sk-ant-test") {
		t.Error("provider blob holds the key")
	}
}

func TestTemperatureWithoutThinking(t *testing.T) {
	srv := fake.New(t, fake.Step{Body: fake.Fixture("anthropic_turn2.json")})
	m, err := New(Options{Model: "claude-haiku-4-5", BaseURL: srv.URL, APIKey: "k-test", Temperature: 0, MaxTokens: 512, Caller: &limits.Caller{}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := m.Generate(context.Background(), fake.FirstRequest()); err != nil {
		t.Fatal(err)
	}
	body := srv.Requests()[0].Body
	if got := gjson.GetBytes(body, "temperature").Raw; got != "0" {
		t.Errorf("temperature = %q, want 0", got)
	}
	if gjson.GetBytes(body, "thinking").Exists() {
		t.Error("thinking sent while off")
	}
	if got := gjson.GetBytes(body, "max_tokens").Int(); got != 512 {
		t.Errorf("max_tokens = %d", got)
	}
}

func fmtBool(b bool) string {
	if b {
		return "true"
	}
	return "false"
}
