package deepseek

import (
	"testing"

	"github.com/killchain/killchain/internal/agent"
	"github.com/killchain/killchain/internal/models/internal/fake"
	"github.com/killchain/killchain/internal/models/openai"
)

// FuzzReply: no DeepSeek reply body (reasoning_content beside the
// content) panics or hangs the driver.
func FuzzReply(f *testing.F) {
	fake.FuzzReplies(f, "application/json", func(url string) (agent.Model, error) {
		return New(openai.Options{Model: "deepseek-reasoner", BaseURL: url, APIKey: "sk-test", Caller: fake.FuzzCaller()})
	}, "deepseek_turn1.json", "deepseek_turn2.json")
}
