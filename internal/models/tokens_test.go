package models

import (
	"strings"
	"testing"
)

func TestTokenWarning(t *testing.T) {
	tests := []struct {
		name string
		cfg  Config
		want []string // substrings of the warning; nil: no warning
	}{
		{"scripted", Config{Name: "s", Provider: Scripted, MaxTokens: 1}, nil},
		{"plain chat model", Config{Name: "mini", Provider: OpenAI, Model: "gpt-4o-mini", MaxTokens: 256}, nil},
		{"anthropic without thinking", Config{Name: "haiku", Provider: Anthropic, MaxTokens: 512}, nil},
		{"anthropic default budget fits", Config{Name: "claude", Provider: Anthropic, Thinking: true}, nil},
		{"anthropic max_tokens below budget is raised", Config{Name: "claude", Provider: Anthropic, Thinking: true, ThinkingBudget: 4096, MaxTokens: 2048},
			[]string{"model claude", "max_tokens 2048 is not above its thinking budget 4096", "sends max_tokens 6144", "keep 2048 tokens", "truncated errors"}},
		{"anthropic max_tokens equal to the minimum budget", Config{Name: "claude", Provider: Anthropic, Thinking: true, MaxTokens: 1024},
			[]string{"max_tokens 1024 is not above its thinking budget 1024", "sends max_tokens 2048"}},
		{"anthropic little room above budget", Config{Name: "claude", Provider: Anthropic, Thinking: true, ThinkingBudget: 1500, MaxTokens: 2048},
			[]string{"model claude", "max_tokens 2048", "leaves 548 tokens", "thinking budget 1500", "truncated errors", "at least 2524"}},
		{"anthropic small max_tokens below budget", Config{Name: "claude", Provider: Anthropic, Thinking: true, ThinkingBudget: 2048, MaxTokens: 512},
			[]string{"model claude", "max_tokens 512", "leaves 512 tokens", "thinking budget 2048", "truncated"}},
		{"anthropic budget below the minimum is raised", Config{Name: "claude", Provider: Anthropic, Thinking: true, ThinkingBudget: 100, MaxTokens: 1500},
			[]string{"leaves 476 tokens", "thinking budget 1024"}},
		{"ollama max_tokens below budget", Config{Name: "qwen", Provider: Ollama, Thinking: true, ThinkingBudget: 4096, MaxTokens: 2048},
			[]string{"model qwen", "max_tokens 2048 is not above its thinking budget 4096", "ollama counts thinking", "truncated errors", "at least 5120"}},
		{"ollama max_tokens equal to budget", Config{Name: "qwen", Provider: Ollama, Thinking: true, ThinkingBudget: 2048, MaxTokens: 2048},
			[]string{"not above its thinking budget 2048"}},
		{"ollama budget fits", Config{Name: "qwen", Provider: Ollama, Thinking: true, ThinkingBudget: 1024, MaxTokens: 4096}, nil},
		{"reasoning effort with default max_tokens", Config{Name: "gpt5", Provider: OpenAI, API: "responses", ReasoningEffort: "low"}, nil},
		{"reasoning effort with small max_tokens", Config{Name: "gpt5", Provider: OpenAI, API: "responses", ReasoningEffort: "high", MaxTokens: 512},
			[]string{"model gpt5", "max_tokens 512 is below 1024", "reasoning_effort high", "truncated errors"}},
		{"thinking on without budget", Config{Name: "box", Provider: OpenAICompatible, Thinking: true, MaxTokens: 800},
			[]string{"model box", "max_tokens 800", "thinking on"}},
		{"deepseek-reasoner always thinks", Config{Name: "ds", Provider: DeepSeek, Model: "deepseek-reasoner", MaxTokens: 600},
			[]string{"model ds", "max_tokens 600", "deepseek-reasoner always thinks"}},
		{"deepseek-chat", Config{Name: "ds", Provider: DeepSeek, Model: "deepseek-chat", MaxTokens: 600}, nil},
		{"reasoning model at the floor", Config{Name: "gpt5", Provider: OpenAI, ReasoningEffort: "minimal", MaxTokens: MinAnswerTokens}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := TokenWarning(tt.cfg)
			if tt.want == nil {
				if got != "" {
					t.Errorf("warning %q, want none", got)
				}
				return
			}
			if got == "" {
				t.Fatal("no warning")
			}
			for _, w := range tt.want {
				if !strings.Contains(got, w) {
					t.Errorf("warning %q lacks %q", got, w)
				}
			}
		})
	}
}

func TestTokenWarnings(t *testing.T) {
	cfgs := []Config{
		{Name: "fine", Provider: OpenAI, MaxTokens: 2048},
		{Name: "small", Provider: OpenAI, ReasoningEffort: "low", MaxTokens: 256},
	}
	got := TokenWarnings(cfgs)
	if len(got) != 1 || !strings.HasPrefix(got[0], "model small:") {
		t.Errorf("warnings = %q, want one for model small", got)
	}
}
