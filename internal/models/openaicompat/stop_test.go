package openaicompat

import (
	"testing"
	"time"

	"github.com/killchain/killchain/internal/agent"
	"github.com/killchain/killchain/internal/models/internal/fake"
	"github.com/killchain/killchain/internal/models/limits"
	"github.com/killchain/killchain/internal/models/openai"
)

// TestStopReasons reads finish_reason as vLLM-style servers send it.
func TestStopReasons(t *testing.T) {
	calls := fake.Fixture("compat_turn1.json")
	text := fake.Fixture("compat_turn2.json")
	// An unclosed <think> block: the server stopped while the model thought.
	thinking := fake.Patch(text, "choices.0.message.content", "<think>\nRevenue up 4%, new office")
	tests := []fake.StopCase{
		{Name: "tool_calls", Want: agent.StopToolUse, Detail: "tool_calls"},
		{Name: "stop", NoTools: true, Want: agent.StopEnd, Detail: "stop"},
		{Name: "length", Stop: fake.StopLength, Want: agent.StopLength, Detail: "length"},
		{Name: "refusal as content_filter", Stop: fake.StopRefusal, Want: agent.StopRefused, Detail: "content_filter"},
		{Name: "abort", Stop: fake.StopPause, Want: agent.StopIncomplete, Detail: "abort"},
		{Name: "length inside think tags", Body: fake.Patch(thinking, "choices.0.finish_reason", "length"), Want: agent.StopLength, Detail: "length"},
		{Name: "stop beside tool calls", Body: fake.Patch(calls, "choices.0.finish_reason", "stop"), Want: agent.StopToolUse, Detail: "stop"},
		{Name: "unknown with narration", Body: fake.Patch(text, "choices.0.finish_reason", "eos_token"), Want: agent.StopEnd, Detail: "eos_token"},
		{Name: "unknown inside think tags", Body: fake.Patch(thinking, "choices.0.finish_reason", "eos_token"), Want: agent.StopIncomplete, Detail: "eos_token"},
		{Name: "null with narration", Body: fake.Patch(text, "choices.0.finish_reason", fake.Null), Want: agent.StopEnd},
		{Name: "null inside think tags", Body: fake.Patch(thinking, "choices.0.finish_reason", fake.Null), Want: agent.StopIncomplete},
		{Name: "missing inside think tags", Body: fake.Patch(thinking, "choices.0.finish_reason", nil), Want: agent.StopIncomplete},
	}
	for _, tt := range tests {
		t.Run(tt.Name, func(t *testing.T) {
			tt.Check(t, fake.Compatible, func(url string) (agent.Model, error) {
				return New(openai.Options{Model: "qwen3-8b", BaseURL: url + "/v1", MaxTokens: 256, Thinking: true, Caller: &limits.Caller{Policy: limits.Policy{Timeout: 5 * time.Second}}})
			})
		})
	}
}
