package ollama

import (
	"github.com/ollama/ollama/api"

	"github.com/killchain/killchain/internal/agent"
)

// ChatRequest returns the /api/chat request the driver sends for one model
// call: the messages, tools and think value Ollama renders into the prompt.
// Hidden-state probes replay transcripts through it, so that the prompt a
// replay renders is the one the served model saw.
func ChatRequest(opts Options, req agent.Request) (*api.ChatRequest, error) {
	return (&Model{opts: opts}).request(req)
}
