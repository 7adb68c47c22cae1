package models

import "testing"

// TestLimit: a block's max_concurrency wins; without one Ollama keeps its
// few slots and every other provider takes the study's concurrency.
func TestLimit(t *testing.T) {
	for _, tc := range []struct {
		name string
		cfg  Config
		want int
	}{
		{"set", Config{Provider: OpenAICompatible, MaxConcurrency: 16, Concurrency: 256}, 16},
		{"study concurrency", Config{Provider: OpenAICompatible, Concurrency: 256}, 256},
		{"hosted", Config{Provider: Anthropic, Concurrency: 32}, 32},
		{"ollama", Config{Provider: Ollama, Concurrency: 256}, DefaultOllamaConc},
		{"ollama set", Config{Provider: Ollama, MaxConcurrency: 4, Concurrency: 256}, 4},
		{"no study", Config{Provider: OpenAI}, DefaultMaxConcurrency},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.cfg.Limit(); got != tc.want {
				t.Errorf("Limit() = %d, want %d", got, tc.want)
			}
		})
	}
}
