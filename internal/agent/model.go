// Package agent runs one agent's turn loop: it asks a Model for the next
// step, routes tool calls through the defenses into the sandbox, feeds the
// results back, and reports everything it sees to the tracker and the
// transcript. The Model interface lives here, beside its consumer.
package agent

import (
	"context"
	"encoding/json"

	"github.com/killchain/killchain/internal/tools"
)

// Model is anything that can take the next turn of an agent: a scripted
// reference agent or a live LLM driver. Thinking, narration and tool calls
// come back apart.
type Model interface {
	Generate(ctx context.Context, req Request) (Reply, error)
}

// Request is one model call.
type Request struct {
	System   string       `json:"system"`
	Messages []Message    `json:"messages"`
	Tools    []tools.Spec `json:"tools"`
	// Script is the ground truth the scripted reference agents play on a
	// suite (script.go); nil otherwise. It is never encoded, and no live
	// driver reads it.
	Script *Script `json:"-"`
}

// Message roles.
const (
	RoleUser      = "user"
	RoleAssistant = "assistant"
	RoleTool      = "tool"
)

// Message is one entry of the conversation as the loop keeps it.
type Message struct {
	Role string `json:"role"`
	// Content is the user prompt, the assistant's narration, or the tool result.
	Content string `json:"content,omitempty"`
	// Thinking is the assistant's hidden thinking (never shown to other agents).
	Thinking  string     `json:"thinking,omitempty"`
	ToolCalls []ToolCall `json:"tool_calls,omitempty"`
	// ToolCallID and ToolName identify the call a tool message answers.
	ToolCallID string `json:"tool_call_id,omitempty"`
	ToolName   string `json:"tool_name,omitempty"`
	IsError    bool   `json:"is_error,omitempty"`
	// Provider carries provider-specific state a driver must send back
	// unchanged on later turns (signed thinking blocks, encrypted reasoning).
	Provider json.RawMessage `json:"provider,omitempty"`
}

// ToolCall is one call the model asked for. Arguments are kept exactly as
// the model produced them; they may be invalid JSON.
type ToolCall struct {
	ID        string `json:"id"`
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}

// Usage counts tokens of one call.
// Input counts every input token, CachedInput those the provider read
// from its prompt cache and CacheWrite those it wrote to it among them;
// Output counts every output token, Reasoning the reasoning ones among
// them. Estimated is set when a count is not the provider's own (it sent
// none, and the driver estimated it from the text); RateLimited counts the
// answers of 429 the call met before its last attempt.
type Usage struct {
	Input       int  `json:"input_tokens"`
	Output      int  `json:"output_tokens"`
	Reasoning   int  `json:"reasoning_tokens"`
	CachedInput int  `json:"cached_input_tokens,omitempty"`
	CacheWrite  int  `json:"cache_write_tokens,omitempty"`
	Estimated   bool `json:"tokens_estimated,omitempty"`
	RateLimited int  `json:"rate_limited,omitempty"`
}

// Add sums usage.
func (u *Usage) Add(o Usage) {
	u.Input += o.Input
	u.Output += o.Output
	u.Reasoning += o.Reasoning
	u.CachedInput += o.CachedInput
	u.CacheWrite += o.CacheWrite
	u.Estimated = u.Estimated || o.Estimated
	u.RateLimited += o.RateLimited
}

// Reply is one model turn.
type Reply struct {
	Thinking  string     `json:"thinking,omitempty"`
	Redacted  bool       `json:"redacted,omitempty"` // some thinking was redacted by the provider
	Narration string     `json:"narration,omitempty"`
	ToolCalls []ToolCall `json:"tool_calls,omitempty"`
	Usage     Usage      `json:"usage"`
	// Provider is stored on the assistant message and handed back to the driver.
	Provider json.RawMessage `json:"provider,omitempty"`
	// Stop is why the provider ended the reply, normalized by the driver.
	// StopLength, StopIncomplete and StopRefused make the run an error.
	Stop StopReason `json:"stop,omitempty"`
	// StopDetail is the provider's own stop reason, kept for the error text.
	StopDetail string `json:"stop_detail,omitempty"`
}

// StopReason is why a reply ended, in the loop's words. Each driver maps its
// provider's field onto these: OpenAI chat finish_reason, OpenAI responses
// status and incomplete_details, Anthropic stop_reason, Ollama done_reason.
type StopReason string

// Stop reasons. The empty reason means the driver did not say (scripted
// agents); it is treated like StopEnd.
const (
	StopEnd        StopReason = "end"        // the model finished its turn
	StopToolUse    StopReason = "tool_use"   // the model stopped to call tools
	StopLength     StopReason = "length"     // cut by the output token limit
	StopIncomplete StopReason = "incomplete" // the provider says the reply is incomplete for another reason
	StopRefused    StopReason = "refused"    // the provider's filter or the model refused (content_filter, refusal)
)
