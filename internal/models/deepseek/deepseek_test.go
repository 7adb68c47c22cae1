package deepseek

import (
	"context"
	"testing"
	"time"

	"github.com/tidwall/gjson"

	"github.com/killchain/killchain/internal/agent"
	"github.com/killchain/killchain/internal/models/internal/fake"
	"github.com/killchain/killchain/internal/models/limits"
	"github.com/killchain/killchain/internal/models/openai"
)

func TestReasoningKeptNotEchoed(t *testing.T) {
	srv := fake.New(t, fake.Step{Body: fake.Fixture("deepseek_turn1.json")}, fake.Step{Body: fake.Fixture("deepseek_turn2.json")})
	d, err := New(openai.Options{Model: "deepseek-reasoner", BaseURL: srv.URL, APIKey: "sk-ds-test", MaxTokens: 2048, Caller: &limits.Caller{Policy: limits.Policy{Timeout: 5 * time.Second}}})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	req := fake.FirstRequest()
	r1, err := d.Generate(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	if len(r1.ToolCalls) != 1 || r1.ToolCalls[0] != (agent.ToolCall{ID: "call_00_Lk8Jh6Gf4Ds2Aq1Wz3Xc5Vb7", Name: "get_webpage", Arguments: `{"url": "https://news.example.com/quarterly"}`}) {
		t.Fatalf("calls = %+v", r1.ToolCalls)
	}
	if r1.Thinking != "The user asks for a summary of the quarterly page. I have a get_webpage tool, so I will fetch it first." || r1.Narration != "" {
		t.Errorf("thinking %q narration %q", r1.Thinking, r1.Narration)
	}
	if r1.Usage != (agent.Usage{Input: 311, Output: 83, Reasoning: 57}) {
		t.Errorf("usage = %+v", r1.Usage)
	}
	r2, err := d.Generate(ctx, fake.SecondRequest(req, r1))
	if err != nil {
		t.Fatal(err)
	}
	if r2.Narration != "The quarterly page reports revenue up 4% and a new office in Lyon." || r2.Thinking == "" || r2.Usage.Reasoning != 38 || r2.Usage.CachedInput != 256 || r2.Usage.Input != 402 {
		t.Errorf("reply 2 = %+v", r2)
	}

	reqs := srv.Requests()
	first, second := reqs[0].Body, reqs[1].Body
	if reqs[0].Path != "/chat/completions" {
		t.Errorf("path = %s", reqs[0].Path)
	}
	if got := gjson.GetBytes(first, "max_tokens").Int(); got != 2048 {
		t.Errorf("max_tokens = %d", got)
	}
	if got := gjson.GetBytes(second, "messages.2.tool_calls.0.id").String(); got != "call_00_Lk8Jh6Gf4Ds2Aq1Wz3Xc5Vb7" {
		t.Errorf("echoed call id = %q", got)
	}
	if got := gjson.GetBytes(second, "messages.3.tool_call_id").String(); got != "call_00_Lk8Jh6Gf4Ds2Aq1Wz3Xc5Vb7" {
		t.Errorf("tool result id = %q", got)
	}
	if gjson.GetBytes(second, "messages.2.reasoning_content").Exists() || gjson.GetBytes(second, "messages.#(reasoning_content)").Exists() {
		t.Errorf("reasoning_content was sent back: %s", second)
	}
	if got := gjson.GetBytes(second, "messages.2.content").String(); got != "" {
		t.Errorf("assistant content = %q, want empty narration", got)
	}
}

func TestThinkingSwitch(t *testing.T) {
	srv := fake.New(t, fake.Step{Body: fake.Fixture("deepseek_turn2.json")})
	d, err := New(openai.Options{Model: "deepseek-chat", BaseURL: srv.URL, APIKey: "k-test", Thinking: true, Caller: &limits.Caller{}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := d.Generate(context.Background(), fake.FirstRequest()); err != nil {
		t.Fatal(err)
	}
	if got := gjson.GetBytes(srv.Requests()[0].Body, "thinking.type").String(); got != "enabled" {
		t.Errorf("thinking.type = %q", got)
	}
}
