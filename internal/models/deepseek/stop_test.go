package deepseek

import (
	"testing"
	"time"

	"github.com/killchain/killchain/internal/agent"
	"github.com/killchain/killchain/internal/models/internal/fake"
	"github.com/killchain/killchain/internal/models/limits"
	"github.com/killchain/killchain/internal/models/openai"
)

// TestStopReasons reads DeepSeek's finish_reason values, including
// insufficient_system_resource.
func TestStopReasons(t *testing.T) {
	calls := fake.Fixture("deepseek_turn1.json")
	text := fake.Fixture("deepseek_turn2.json")
	thinkingOnly := fake.Patch(text, "choices.0.message.content", "")
	tests := []fake.StopCase{
		{Name: "tool_calls", Want: agent.StopToolUse, Detail: "tool_calls"},
		{Name: "stop", NoTools: true, Want: agent.StopEnd, Detail: "stop"},
		{Name: "length", Stop: fake.StopLength, Want: agent.StopLength, Detail: "length"},
		{Name: "content_filter", Stop: fake.StopFilter, Want: agent.StopRefused, Detail: "content_filter"},
		{Name: "insufficient_system_resource", Stop: fake.StopPause, Want: agent.StopIncomplete, Detail: "insufficient_system_resource"},
		{Name: "length after reasoning", Body: fake.Patch(thinkingOnly, "choices.0.finish_reason", "length"), Want: agent.StopLength, Detail: "length"},
		{Name: "unknown with calls", Body: fake.Patch(calls, "choices.0.finish_reason", "eos"), Want: agent.StopToolUse, Detail: "eos"},
		{Name: "unknown with reasoning only", Body: fake.Patch(thinkingOnly, "choices.0.finish_reason", "eos"), Want: agent.StopIncomplete, Detail: "eos"},
		{Name: "missing with reasoning only", Body: fake.Patch(thinkingOnly, "choices.0.finish_reason", nil), Want: agent.StopIncomplete},
	}
	for _, tt := range tests {
		t.Run(tt.Name, func(t *testing.T) {
			r := tt.Check(t, fake.DeepSeek, func(url string) (agent.Model, error) {
				return New(openai.Options{Model: "deepseek-reasoner", BaseURL: url, APIKey: "k-test", MaxTokens: 256, Caller: &limits.Caller{Policy: limits.Policy{Timeout: 5 * time.Second}}})
			})
			if tt.Stop == fake.StopLength && (r.Thinking == "" || r.Narration != "" || len(r.ToolCalls) != 0) {
				t.Errorf("cut reply = %+v, want reasoning only", r)
			}
		})
	}
}
