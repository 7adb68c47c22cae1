package openaicompat

import (
	"testing"

	"github.com/killchain/killchain/internal/agent"
	"github.com/killchain/killchain/internal/models/internal/fake"
	"github.com/killchain/killchain/internal/models/openai"
)

// FuzzReply: no OpenAI-compatible reply body (reasoning fields, <think>
// blocks) panics or hangs the driver.
func FuzzReply(f *testing.F) {
	fake.FuzzReplies(f, "application/json", func(url string) (agent.Model, error) {
		return New(openai.Options{Model: "qwen-test", BaseURL: url + "/v1", Thinking: true, Caller: fake.FuzzCaller()})
	}, "compat_turn1.json", "compat_turn2.json")
}
