package models

import (
	"context"
	"testing"

	"github.com/killchain/killchain/internal/agent"
	"github.com/killchain/killchain/internal/models/internal/fake"
	"github.com/killchain/killchain/internal/models/limits"
)

// TestEveryDriverReadsStops builds each provider's driver through New, as
// a study does, and checks the reply's stop reason when the model-like fake
// ends its turn normally, at the token limit, refused by a filter, or
// unfinished. The loop turns all but the first into errors.
func TestEveryDriverReadsStops(t *testing.T) {
	setKeys(t)
	drivers := []struct {
		kind fake.Kind
		cfg  Config
	}{
		{fake.Ollama, Config{Name: "local", Provider: Ollama, Model: "qwen3:8b", Thinking: true}},
		{fake.OpenAIChat, Config{Name: "mini", Provider: OpenAI, Model: "gpt-4o-mini"}},
		{fake.Responses, Config{Name: "reasoner", Provider: OpenAI, Model: "gpt-5-mini", API: "responses", Thinking: true, ReasoningEffort: "low"}},
		{fake.Anthropic, Config{Name: "claude", Provider: Anthropic, Model: "claude-sonnet-4-5", Thinking: true}},
		{fake.DeepSeek, Config{Name: "ds", Provider: DeepSeek, Model: "deepseek-reasoner"}},
		{fake.Compatible, Config{Name: "box", Provider: OpenAICompatible, Model: "qwen3-8b", APIKeyEnv: "GPU_BOX_KEY", Thinking: true}},
	}
	stops := []struct {
		name string
		stop fake.Stop
		want agent.StopReason
	}{
		{"finished turn", fake.NoStop, agent.StopToolUse},
		{"token limit", fake.StopLength, agent.StopLength},
		{"content filter", fake.StopFilter, agent.StopRefused},
		{"unfinished", fake.StopPause, agent.StopIncomplete},
	}
	for _, d := range drivers {
		for _, s := range stops {
			t.Run(string(d.kind)+"/"+s.name, func(t *testing.T) {
				want := s.want
				if d.kind == fake.Ollama && s.stop == fake.StopFilter {
					want = agent.StopEnd // Ollama has no filter: the model says it refuses
				}
				srv := fake.NewProvider(t, d.kind, fake.Options{})
				if s.stop != fake.NoStop {
					srv.Fail(fake.Fault{Name: string(s.stop), Stop: s.stop})
				}
				m, err := New(point(d.cfg, srv.URL), nil, WithLimiter(limits.NewLimiter(1, 1)), WithPolicy(noRetry))
				if err != nil {
					t.Fatal(err)
				}
				r, err := m.Generate(context.Background(), fake.FirstRequest())
				if err != nil {
					t.Fatal(err)
				}
				if r.Stop != want || r.StopDetail == "" {
					t.Errorf("stop = %q (%q), want %q with the provider's reason", r.Stop, r.StopDetail, want)
				}
			})
		}
	}
}
