// Package deepseek drives DeepSeek's OpenAI-compatible API through the
// openai-go SDK. The reply's reasoning_content is kept as thinking and is
// never sent back on later turns.
package deepseek

import (
	"github.com/killchain/killchain/internal/models/openai"
)

// DefaultBaseURL is DeepSeek's API.
const DefaultBaseURL = "https://api.deepseek.com"

// New returns a DeepSeek driver. Thinking on asks deepseek-chat models for
// thinking mode; deepseek-reasoner always thinks.
func New(opts openai.Options) (*openai.Chat, error) {
	if opts.BaseURL == "" {
		opts.BaseURL = DefaultBaseURL
	}
	opts.ReasoningFields = []string{"reasoning_content"}
	opts.LegacyMaxTokens = true
	opts.ReasoningEffort = "" // not a DeepSeek parameter
	if opts.Thinking {
		opts.Extra = merge(opts.Extra, "thinking", map[string]any{"type": "enabled"})
	}
	return openai.NewChat(opts)
}

func merge(m map[string]any, k string, v any) map[string]any {
	out := map[string]any{k: v}
	for key, val := range m {
		out[key] = val
	}
	return out
}
