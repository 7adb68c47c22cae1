// Package openaicompat drives any OpenAI-compatible Chat Completions server
// (vLLM, llama.cpp server, LM Studio) through the openai-go SDK. Hidden
// thinking is read from a reasoning_content or reasoning field, or from a
// leading <think> block in the content, and never sent back.
package openaicompat

import (
	"fmt"

	"github.com/killchain/killchain/internal/models/openai"
)

// New returns a driver for the server at opts.BaseURL (which usually ends
// in /v1). Thinking on sets chat_template_kwargs.enable_thinking, which
// vLLM and llama.cpp pass to templates such as Qwen3's.
func New(opts openai.Options) (*openai.Chat, error) {
	if opts.BaseURL == "" {
		return nil, fmt.Errorf("openai_compatible: base_url is required")
	}
	opts.ReasoningFields = []string{"reasoning_content", "reasoning"}
	opts.LegacyMaxTokens = true
	if opts.Thinking {
		extra := map[string]any{"chat_template_kwargs": map[string]any{"enable_thinking": true}}
		for k, v := range opts.Extra {
			extra[k] = v
		}
		opts.Extra = extra
	}
	return openai.NewChat(opts)
}
