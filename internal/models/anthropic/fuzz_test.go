package anthropic

import (
	"testing"

	"github.com/killchain/killchain/internal/agent"
	"github.com/killchain/killchain/internal/models/internal/fake"
)

// FuzzReply: no Messages API reply body panics or hangs the driver.
func FuzzReply(f *testing.F) {
	fake.FuzzReplies(f, "application/json", func(url string) (agent.Model, error) {
		return New(Options{Model: "claude-test", BaseURL: url, APIKey: "sk-ant-test", MaxTokens: 1024, Caller: fake.FuzzCaller()})
	}, "anthropic_turn1.json", "anthropic_turn2.json", "anthropic_error.json")
}
