package ollama

import (
	"testing"

	"github.com/killchain/killchain/internal/agent"
	"github.com/killchain/killchain/internal/models/internal/fake"
)

// FuzzReply: no /api/chat stream panics or hangs the driver.
func FuzzReply(f *testing.F) {
	fake.FuzzReplies(f, "application/x-ndjson", func(url string) (agent.Model, error) {
		return New(Options{Model: "qwen-test", Host: url, Caller: fake.FuzzCaller()})
	}, "ollama_turn1.ndjson", "ollama_turn2.ndjson", "ollama_error.json")
}
