package openai

import (
	"context"
	"strings"
	"testing"

	"github.com/killchain/killchain/internal/agent"
	"github.com/killchain/killchain/internal/models/internal/fake"
)

// TestChatStopReasons reads finish_reason and message.refusal from every
// way a Chat Completions reply can end.
func TestChatStopReasons(t *testing.T) {
	calls := fake.Fixture("openai_chat_turn1.json")
	text := fake.Fixture("openai_chat_turn2.json")
	empty := fake.Patch(text, "choices.0.message.content", "")
	tests := []fake.StopCase{
		{Name: "tool_calls", Want: agent.StopToolUse, Detail: "tool_calls"},
		{Name: "stop", NoTools: true, Want: agent.StopEnd, Detail: "stop"},
		{Name: "length", Stop: fake.StopLength, Want: agent.StopLength, Detail: "length"},
		{Name: "refusal field", Stop: fake.StopRefusal, Want: agent.StopRefused, Detail: "refusal"},
		{Name: "content_filter", Stop: fake.StopFilter, Want: agent.StopRefused, Detail: "content_filter"},
		{Name: "legacy function_call", Body: fake.Patch(calls, "choices.0.finish_reason", "function_call"), Want: agent.StopToolUse, Detail: "function_call"},
		{Name: "stop beside tool calls", Body: fake.Patch(calls, "choices.0.finish_reason", "stop"), Want: agent.StopToolUse, Detail: "stop"},
		{Name: "tool_calls without a call", Body: fake.Patch(text, "choices.0.finish_reason", "tool_calls"), Want: agent.StopIncomplete, Detail: "tool_calls"},
		{Name: "refusal beside finish_reason stop", Body: fake.Patch(fake.Patch(text, "choices.0.message.content", nil), "choices.0.message.refusal", "I can't help with that."), Want: agent.StopRefused, Detail: "refusal"},
		{Name: "unknown with narration", Body: fake.Patch(text, "choices.0.finish_reason", "eos"), Want: agent.StopEnd, Detail: "eos"},
		{Name: "unknown with calls", Body: fake.Patch(calls, "choices.0.finish_reason", "eos"), Want: agent.StopToolUse, Detail: "eos"},
		{Name: "unknown and empty", Body: fake.Patch(empty, "choices.0.finish_reason", "eos"), Want: agent.StopIncomplete, Detail: "eos"},
		{Name: "missing and empty", Body: fake.Patch(empty, "choices.0.finish_reason", nil), Want: agent.StopIncomplete},
		{Name: "missing with narration", Body: fake.Patch(text, "choices.0.finish_reason", nil), Want: agent.StopEnd},
		{Name: "malformed", Body: fake.Patch(empty, "choices.0.finish_reason", map[string]any{"type": "stop"}), Want: agent.StopIncomplete, Detail: `{"type":"stop"}`},
	}
	for _, tt := range tests {
		t.Run(tt.Name, func(t *testing.T) {
			url, req := tt.Serve(t, fake.OpenAIChat)
			d, err := NewChat(Options{Model: "gpt-4o-mini", BaseURL: url + "/v1", MaxTokens: 256, Caller: testCaller()})
			if err != nil {
				t.Fatal(err)
			}
			r, err := d.Generate(context.Background(), req)
			if err != nil {
				t.Fatal(err)
			}
			want(t, "stop", r.Stop, tt.Want)
			want(t, "detail", r.StopDetail, tt.Detail)
			if tt.Stop == fake.StopRefusal && r.Narration != fake.Refusal {
				t.Errorf("narration = %q, want the refusal", r.Narration)
			}
			if tt.Stop != fake.NoStop && len(r.ToolCalls) != 0 {
				t.Errorf("a stopped reply has calls %+v", r.ToolCalls)
			}
		})
	}
}

// TestResponsesStopReasons reads status, incomplete_details and refusal
// parts from every way a Responses reply can end.
func TestResponsesStopReasons(t *testing.T) {
	calls := fake.Fixture("openai_responses_turn1.json")
	text := fake.Fixture("openai_responses_turn2.json")
	reasoningOnly := fake.Patch(text, "output.1", nil)
	tests := []fake.StopCase{
		{Name: "completed with calls", Want: agent.StopToolUse, Detail: "completed"},
		{Name: "completed", NoTools: true, Want: agent.StopEnd, Detail: "completed"},
		{Name: "max_output_tokens", Stop: fake.StopLength, Want: agent.StopLength, Detail: "max_output_tokens"},
		{Name: "refusal part", Stop: fake.StopRefusal, Want: agent.StopRefused, Detail: "refusal"},
		{Name: "content_filter", Stop: fake.StopFilter, Want: agent.StopRefused, Detail: "content_filter"},
		{Name: "other incomplete reason", Stop: fake.StopPause, Want: agent.StopIncomplete, Detail: "max_messages"},
		{Name: "incomplete without details", Body: fake.Patch(reasoningOnly, "status", "incomplete"), Want: agent.StopIncomplete, Detail: "incomplete"},
		{Name: "in_progress", Body: fake.Patch(text, "status", "in_progress"), Want: agent.StopIncomplete, Detail: "in_progress"},
		{Name: "cancelled", Body: fake.Patch(calls, "status", "cancelled"), Want: agent.StopIncomplete, Detail: "cancelled"},
		{Name: "unknown status with narration", Body: fake.Patch(text, "status", "done"), Want: agent.StopEnd, Detail: "done"},
		{Name: "unknown status with calls", Body: fake.Patch(calls, "status", "done"), Want: agent.StopToolUse, Detail: "done"},
		{Name: "missing status, reasoning only", Body: fake.Patch(reasoningOnly, "status", nil), Want: agent.StopIncomplete},
		{Name: "malformed status", Body: fake.Patch(reasoningOnly, "status", []int{3}), Want: agent.StopIncomplete, Detail: "[3]"},
	}
	for _, tt := range tests {
		t.Run(tt.Name, func(t *testing.T) {
			url, req := tt.Serve(t, fake.Responses)
			d, err := NewResponses(Options{Model: "gpt-5-mini", BaseURL: url + "/v1", MaxTokens: 256, Thinking: true, ReasoningEffort: "low", Caller: testCaller()})
			if err != nil {
				t.Fatal(err)
			}
			r, err := d.Generate(context.Background(), req)
			if err != nil {
				t.Fatal(err)
			}
			want(t, "stop", r.Stop, tt.Want)
			want(t, "detail", r.StopDetail, tt.Detail)
			switch tt.Stop {
			case fake.StopLength:
				// A reasoning model that spent its budget thinking: the
				// reasoning is kept, nothing else came.
				if r.Thinking == "" || r.Narration != "" || len(r.ToolCalls) != 0 {
					t.Errorf("cut reply = %+v, want thinking only", r)
				}
			case fake.StopRefusal:
				want(t, "narration", r.Narration, fake.Refusal)
			}
		})
	}
}

// TestResponsesFailedIsAProviderError: a failed response is never a reply.
func TestResponsesFailedIsAProviderError(t *testing.T) {
	body := fake.Patch(fake.Patch(fake.Fixture("openai_responses_turn2.json"), "status", "failed"),
		"error", map[string]any{"code": "server_error", "message": "The model failed to generate a response."})
	srv := fake.New(t, fake.Step{Body: body})
	d, err := NewResponses(Options{Model: "gpt-5-mini", BaseURL: srv.URL, Caller: testCaller()})
	if err != nil {
		t.Fatal(err)
	}
	_, err = d.Generate(context.Background(), firstRequest(t))
	if err == nil || !strings.Contains(err.Error(), "failed to generate") {
		t.Fatalf("err = %v, want the provider's failure", err)
	}
}
