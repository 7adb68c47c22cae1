package models

import (
	"fmt"
	"strings"

	"github.com/killchain/killchain/internal/models/anthropic"
)

// MinAnswerTokens is the room TokenWarning wants a reply to have for its
// answer and tool calls once the model has thought: below it, a model that
// thinks as much as it may is cut by the token limit before it acts, and
// the run ends as a truncated error instead of an outcome. It is a floor
// for settings that are plainly too small, not a guarantee.
const MinAnswerTokens = 1024

// TokenWarning says why a model's max_tokens leaves too little room beside
// its thinking, naming the model and the values; "" when it is fine.
//
// With a thinking budget (Anthropic's, at least anthropic.MinThinkingBudget
// whenever thinking is on, or thinking_budget on any provider) the room is
// what the provider is sent as its output limit minus the budget, and must
// be at least MinAnswerTokens. The Anthropic driver sends max_tokens +
// budget when max_tokens is not above the budget, so there the room is
// max_tokens itself, and the warning says what is sent instead; the other
// drivers send no budget, and their output limit counts thinking too, so
// max_tokens at or below the budget leaves none.
//
// Without a budget, a reasoning model (reasoning_effort set, thinking on,
// or deepseek-reasoner, which always thinks) spends its reasoning inside
// max_tokens, and max_tokens below MinAnswerTokens is warned about.
func TokenWarning(c Config) string {
	if c.Provider == Scripted {
		return ""
	}
	maxTokens := c.MaxTokens
	if maxTokens <= 0 {
		maxTokens = DefaultMaxTokens
	}
	const cut = "replies cut by the token limit end as truncated errors, not outcomes"
	budget := c.ThinkingBudget
	if c.Provider == Anthropic && c.Thinking {
		budget = max(budget, anthropic.MinThinkingBudget)
	}
	if budget > 0 {
		sent := maxTokens
		if c.Provider == Anthropic && sent <= budget {
			sent += budget
		}
		room := sent - budget
		want := budget + MinAnswerTokens
		if sent != maxTokens && room >= MinAnswerTokens {
			return fmt.Sprintf("model %s: max_tokens %d is not above its thinking budget %d, so the driver sends max_tokens %d to keep %d tokens for the answer; %s (set max_tokens to at least %d to choose the limit yourself)",
				c.Name, maxTokens, budget, sent, room, cut, want)
		}
		if room >= MinAnswerTokens {
			return ""
		}
		if room <= 0 {
			return fmt.Sprintf("model %s: max_tokens %d is not above its thinking budget %d (%s counts thinking in max_tokens): a reply that thinks its whole budget is cut before it answers; %s (set max_tokens to at least %d)",
				c.Name, maxTokens, budget, c.Provider, cut, want)
		}
		return fmt.Sprintf("model %s: max_tokens %d leaves %d tokens for the answer and tool calls beside its thinking budget %d; %s (set max_tokens to at least %d)",
			c.Name, maxTokens, room, budget, cut, want)
	}
	why := reasoning(c)
	if why == "" || maxTokens >= MinAnswerTokens {
		return ""
	}
	return fmt.Sprintf("model %s: max_tokens %d is below %d for a reasoning model (%s), whose reasoning counts in max_tokens; %s (set max_tokens to at least %d)",
		c.Name, maxTokens, MinAnswerTokens, why, cut, MinAnswerTokens)
}

// reasoning says why a model without a thinking budget reasons inside its
// output limit, or "" when it does not.
func reasoning(c Config) string {
	switch {
	case c.ReasoningEffort != "" && c.Provider != DeepSeek:
		return "reasoning_effort " + c.ReasoningEffort
	case c.Thinking:
		return "thinking on"
	case c.Provider == DeepSeek && strings.Contains(c.Model, "reasoner"):
		return c.Model + " always thinks"
	}
	return ""
}

// TokenWarnings returns TokenWarning for each config that has one.
func TokenWarnings(cfgs []Config) []string {
	var out []string
	for _, c := range cfgs {
		if w := TokenWarning(c); w != "" {
			out = append(out, w)
		}
	}
	return out
}
