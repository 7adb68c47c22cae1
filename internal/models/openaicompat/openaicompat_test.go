package openaicompat

import (
	"context"
	"testing"

	"github.com/tidwall/gjson"

	"github.com/killchain/killchain/internal/agent"
	"github.com/killchain/killchain/internal/models/internal/fake"
	"github.com/killchain/killchain/internal/models/limits"
	"github.com/killchain/killchain/internal/models/openai"
)

func TestReasoningFieldsAndThinkTags(t *testing.T) {
	srv := fake.New(t, fake.Step{Body: fake.Fixture("compat_turn1.json")}, fake.Step{Body: fake.Fixture("compat_turn2.json")})
	d, err := New(openai.Options{Model: "qwen3-8b", BaseURL: srv.URL + "/v1", MaxTokens: 1024, Caller: &limits.Caller{}})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	req := fake.FirstRequest()
	r1, err := d.Generate(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	if len(r1.ToolCalls) != 1 || r1.ToolCalls[0] != (agent.ToolCall{ID: "chatcmpl-tool-3c2b1a09f8e7d6c5", Name: "get_webpage", Arguments: `{"url": "https://news.example.com/quarterly"}`}) {
		t.Fatalf("calls = %+v", r1.ToolCalls)
	}
	if r1.Thinking != "I need the page before I can summarise it, so I call get_webpage." || r1.Narration != "" {
		t.Errorf("thinking %q narration %q", r1.Thinking, r1.Narration)
	}
	if r1.Usage != (agent.Usage{Input: 298, Output: 53}) {
		t.Errorf("usage = %+v", r1.Usage)
	}
	r2, err := d.Generate(ctx, fake.SecondRequest(req, r1))
	if err != nil {
		t.Fatal(err)
	}
	if r2.Thinking != "Revenue up 4%, new office in Lyon." || r2.Narration != "The quarterly page reports revenue up 4% and a new office in Lyon." {
		t.Errorf("thinking %q narration %q", r2.Thinking, r2.Narration)
	}
	reqs := srv.Requests()
	first, second := reqs[0].Body, reqs[1].Body
	if reqs[0].Path != "/v1/chat/completions" || reqs[0].Header.Get("Authorization") != "" {
		t.Errorf("path %s auth %q", reqs[0].Path, reqs[0].Header.Get("Authorization"))
	}
	if gjson.GetBytes(first, "chat_template_kwargs").Exists() {
		t.Error("thinking switch sent while thinking is off")
	}
	if got := gjson.GetBytes(first, "max_tokens").Int(); got != 1024 {
		t.Errorf("max_tokens = %d", got)
	}
	if gjson.GetBytes(second, "messages.2.reasoning").Exists() || gjson.GetBytes(second, "messages.2.reasoning_content").Exists() {
		t.Error("reasoning was sent back")
	}
	if got := gjson.GetBytes(second, "messages.3.content").String(); got != fake.ToolResult {
		t.Errorf("tool result = %q", got)
	}
}

func TestKeyFromOptionsAndThinkingSwitch(t *testing.T) {
	srv := fake.New(t, fake.Step{Body: fake.Fixture("compat_turn2.json")})
	d, err := New(openai.Options{Model: "qwen3-8b", BaseURL: srv.URL, APIKey: "box-key-123", Thinking: true, Caller: &limits.Caller{}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := d.Generate(context.Background(), fake.FirstRequest()); err != nil {
		t.Fatal(err)
	}
	r := srv.Requests()[0]
	if r.Header.Get("Authorization") != "Bearer box-key-123" {
		t.Errorf("auth = %q", r.Header.Get("Authorization"))
	}
	if !gjson.GetBytes(r.Body, "chat_template_kwargs.enable_thinking").Bool() {
		t.Error("enable_thinking not sent")
	}
}

func TestBaseURLRequired(t *testing.T) {
	if _, err := New(openai.Options{Model: "x", Caller: &limits.Caller{}}); err == nil {
		t.Error("no error without base_url")
	}
}
