package openai

import (
	"context"
	"strings"
	"testing"

	"github.com/killchain/killchain/internal/agent"
	"github.com/killchain/killchain/internal/models/internal/fake"
)

func TestResponsesReasoningCarried(t *testing.T) {
	srv := fake.New(t, fake.Step{Body: fake.Fixture("openai_responses_turn1.json")}, fake.Step{Body: fake.Fixture("openai_responses_turn2.json")})
	d, err := NewResponses(Options{Model: "gpt-5-mini", BaseURL: srv.URL + "/v1", APIKey: "sk-test-resp", MaxTokens: 2048, Thinking: true, ReasoningEffort: "low", Caller: testCaller()})
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
		t.Fatalf("calls = %+v", r1.ToolCalls)
	}
	want(t, "call", r1.ToolCalls[0], agent.ToolCall{ID: "call_R7tY2uI9oP4aS6dF8gH1jK3l", Name: "get_webpage", Arguments: `{"url":"https://news.example.com/quarterly"}`})
	if !strings.Contains(r1.Thinking, "I need to fetch it first") {
		t.Errorf("thinking = %q, want the reasoning summary", r1.Thinking)
	}
	want(t, "narration 1", r1.Narration, "")
	want(t, "usage 1", r1.Usage, agent.Usage{Input: 214, Output: 156, Reasoning: 128})
	if !strings.Contains(string(r1.Provider), "gAAAAABpKx7vR3Zl") {
		t.Errorf("provider blob lacks the encrypted reasoning: %s", r1.Provider)
	}

	r2, err := d.Generate(ctx, secondRequest(req, r1))
	if err != nil {
		t.Fatal(err)
	}
	want(t, "narration 2", r2.Narration, "The quarterly page reports revenue up 4% and a new office in Lyon.")
	if !strings.Contains(r2.Thinking, "Summarising") || strings.Contains(r2.Narration, "Summarising") {
		t.Errorf("thinking %q and narration %q not kept apart", r2.Thinking, r2.Narration)
	}
	want(t, "usage 2", r2.Usage, agent.Usage{Input: 402, Output: 88, Reasoning: 64, CachedInput: 256})

	reqs := srv.Requests()
	first, second := reqs[0].Body, reqs[1].Body
	want(t, "path", reqs[0].Path, "/v1/responses")
	want(t, "store", field(first, "store").Raw, "false")
	want(t, "include", field(first, "include.0").String(), "reasoning.encrypted_content")
	want(t, "effort", field(first, "reasoning.effort").String(), "low")
	want(t, "summary", field(first, "reasoning.summary").String(), "auto")
	want(t, "no temperature", field(first, "temperature").Exists(), false)
	want(t, "instructions", field(first, "instructions").String(), "You are a research assistant.")
	want(t, "tool", field(first, "tools.0.name").String(), "get_webpage")
	want(t, "tool type", field(first, "tools.0.type").String(), "function")
	want(t, "max", field(first, "max_output_tokens").Int(), int64(2048))
	// Turn two replays the reasoning item with its encrypted content, then
	// the call, then the call's output.
	want(t, "item 1 type", field(second, "input.1.type").String(), "reasoning")
	want(t, "item 1 id", field(second, "input.1.id").String(), "rs_0a1b2c3d4e5f60718293a4b5c6d7e8f9aa")
	want(t, "encrypted", field(second, "input.1.encrypted_content").String(), "gAAAAABpKx7vR3ZlbmNyeXB0ZWQtcmVhc29uaW5nLXR1cm4tb25lLW9wYXF1ZS1ibG9i")
	want(t, "item 2 type", field(second, "input.2.type").String(), "function_call")
	want(t, "item 2 call", field(second, "input.2.call_id").String(), "call_R7tY2uI9oP4aS6dF8gH1jK3l")
	want(t, "item 3 type", field(second, "input.3.type").String(), "function_call_output")
	want(t, "item 3 call", field(second, "input.3.call_id").String(), "call_R7tY2uI9oP4aS6dF8gH1jK3l")
	want(t, "item 3 output", field(second, "input.3.output").String(), "Quarterly: revenue up 4%. New office in Lyon.")
}
