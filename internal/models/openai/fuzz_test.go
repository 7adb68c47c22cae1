package openai

import (
	"testing"

	"github.com/killchain/killchain/internal/agent"
	"github.com/killchain/killchain/internal/models/internal/fake"
)

// FuzzChatReply: no Chat Completions reply body panics or hangs the driver.
func FuzzChatReply(f *testing.F) {
	fake.FuzzReplies(f, "application/json", func(url string) (agent.Model, error) {
		return NewChat(Options{Model: "gpt-test", BaseURL: url, APIKey: "sk-test", Caller: fake.FuzzCaller()})
	}, "openai_chat_turn1.json", "openai_chat_turn2.json", "openai_chat_badargs.json", "openai_error.json")
}

// FuzzResponsesReply: no Responses API reply body panics or hangs the driver.
func FuzzResponsesReply(f *testing.F) {
	fake.FuzzReplies(f, "application/json", func(url string) (agent.Model, error) {
		return NewResponses(Options{Model: "gpt-test", BaseURL: url, APIKey: "sk-test", Caller: fake.FuzzCaller()})
	}, "openai_responses_turn1.json", "openai_responses_turn2.json", "openai_responses_badargs.json")
}
