package anthropic

import (
	"testing"
	"time"

	"github.com/killchain/killchain/internal/agent"
	"github.com/killchain/killchain/internal/models/internal/fake"
	"github.com/killchain/killchain/internal/models/limits"
)

// TestStopReasons reads stop_reason from every way a Messages reply can end.
func TestStopReasons(t *testing.T) {
	calls := fake.Fixture("anthropic_turn1.json") // thinking, redacted thinking, text, tool_use
	text := fake.Fixture("anthropic_turn2.json")
	thinkingOnly := fake.Patch(fake.Patch(calls, "content.3", nil), "content.2", nil)
	tests := []fake.StopCase{
		{Name: "tool_use", Want: agent.StopToolUse, Detail: "tool_use"},
		{Name: "end_turn", NoTools: true, Want: agent.StopEnd, Detail: "end_turn"},
		{Name: "max_tokens", Stop: fake.StopLength, Want: agent.StopLength, Detail: "max_tokens"},
		{Name: "refusal", Stop: fake.StopRefusal, Want: agent.StopRefused, Detail: "refusal"},
		{Name: "pause_turn", Stop: fake.StopPause, Want: agent.StopIncomplete, Detail: "pause_turn"},
		{Name: "stop_sequence", Body: fake.Patch(text, "stop_reason", "stop_sequence"), Want: agent.StopEnd, Detail: "stop_sequence"},
		{Name: "model_context_window_exceeded", Body: fake.Patch(text, "stop_reason", "model_context_window_exceeded"), Want: agent.StopLength, Detail: "model_context_window_exceeded"},
		{Name: "tool_use without a block", Body: fake.Patch(text, "stop_reason", "tool_use"), Want: agent.StopIncomplete, Detail: "tool_use"},
		{Name: "end_turn beside tool_use", Body: fake.Patch(calls, "stop_reason", "end_turn"), Want: agent.StopToolUse, Detail: "end_turn"},
		{Name: "unknown with text", Body: fake.Patch(text, "stop_reason", "compaction"), Want: agent.StopEnd, Detail: "compaction"},
		{Name: "unknown with calls", Body: fake.Patch(calls, "stop_reason", "compaction"), Want: agent.StopToolUse, Detail: "compaction"},
		{Name: "unknown with thinking only", Body: fake.Patch(thinkingOnly, "stop_reason", "compaction"), Want: agent.StopIncomplete, Detail: "compaction"},
		{Name: "missing with thinking only", Body: fake.Patch(thinkingOnly, "stop_reason", nil), Want: agent.StopIncomplete},
		{Name: "malformed", Body: fake.Patch(thinkingOnly, "stop_reason", map[string]any{"type": "end_turn"}), Want: agent.StopIncomplete, Detail: `{"type":"end_turn"}`},
	}
	for _, tt := range tests {
		t.Run(tt.Name, func(t *testing.T) {
			r := tt.Check(t, fake.Anthropic, func(url string) (agent.Model, error) {
				return New(Options{Model: "claude-sonnet-4-5", BaseURL: url, APIKey: "k-test", MaxTokens: 2048, Thinking: true, ThinkingBudget: 1024,
					Caller: &limits.Caller{Policy: limits.Policy{Timeout: 5 * time.Second}}})
			})
			if tt.Stop == fake.StopLength && (r.Thinking == "" || r.Narration != "" || len(r.ToolCalls) != 0) {
				t.Errorf("cut reply = %+v, want thinking only", r)
			}
		})
	}
}
