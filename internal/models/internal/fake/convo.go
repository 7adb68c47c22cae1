package fake

import (
	"github.com/killchain/killchain/internal/agent"
	"github.com/killchain/killchain/internal/tools"
)

// ToolResult is the page text the scripted conversation's tool returns.
const ToolResult = "Quarterly: revenue up 4%. New office in Lyon."

// FirstRequest is the opening model call of the two-turn exchange every
// driver test runs: a system prompt, one user message and two tools.
func FirstRequest() agent.Request {
	web, _ := tools.Lookup(tools.GetWebpage)
	send, _ := tools.Lookup(tools.SendReport)
	return agent.Request{
		System:   "You are a research assistant.",
		Messages: []agent.Message{{Role: agent.RoleUser, Content: "Summarise https://news.example.com/quarterly"}},
		Tools:    []tools.Spec{web, send},
	}
}

// SecondRequest appends the first reply and a result for each of its calls,
// as the agent loop does.
func SecondRequest(req agent.Request, r agent.Reply) agent.Request {
	msgs := append([]agent.Message(nil), req.Messages...)
	msgs = append(msgs, agent.Message{Role: agent.RoleAssistant, Content: r.Narration, Thinking: r.Thinking, ToolCalls: r.ToolCalls, Provider: r.Provider})
	for _, c := range r.ToolCalls {
		msgs = append(msgs, agent.Message{Role: agent.RoleTool, ToolCallID: c.ID, ToolName: c.Name, Content: ToolResult})
	}
	req.Messages = msgs
	return req
}
