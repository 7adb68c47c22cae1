package openai

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	oai "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/shared"

	"github.com/killchain/killchain/internal/agent"
	"github.com/killchain/killchain/internal/models/internal/chat"
)

// Chat is a Chat Completions driver.
type Chat struct {
	opts Options
	svc  oai.ChatCompletionService
}

var _ agent.Model = (*Chat)(nil)

// NewChat returns a Chat Completions driver.
func NewChat(opts Options) (*Chat, error) {
	if err := opts.validate(); err != nil {
		return nil, err
	}
	return &Chat{opts: opts, svc: oai.NewChatCompletionService(opts.requestOptions()...)}, nil
}

// Generate implements agent.Model.
func (c *Chat) Generate(ctx context.Context, req agent.Request) (agent.Reply, error) {
	params, err := c.params(req)
	if err != nil {
		return agent.Reply{}, err
	}
	var resp *oai.ChatCompletion
	st, err := c.opts.Caller.Do(ctx, func(ctx context.Context) error {
		r, err := c.svc.New(ctx, params)
		if err != nil {
			return err
		}
		if r == nil || len(r.Choices) == 0 {
			// A body of null decodes to no completion at all.
			return fmt.Errorf("chat completion has no choices")
		}
		resp = r
		return nil
	})
	if err != nil {
		return agent.Reply{}, err
	}
	r := c.reply(req, resp)
	r.Usage.RateLimited = st.Throttled
	return r, nil
}

func (c *Chat) params(req agent.Request) (oai.ChatCompletionNewParams, error) {
	o := c.opts
	p := oai.ChatCompletionNewParams{Model: shared.ChatModel(o.Model)}
	if req.System != "" {
		p.Messages = append(p.Messages, oai.SystemMessage(req.System))
	}
	for _, m := range req.Messages {
		switch m.Role {
		case agent.RoleUser:
			p.Messages = append(p.Messages, oai.UserMessage(m.Content))
		case agent.RoleTool:
			p.Messages = append(p.Messages, oai.ToolMessage(m.Content, m.ToolCallID))
		case agent.RoleAssistant:
			// Only narration and calls go back; hidden reasoning never does.
			a := oai.ChatCompletionAssistantMessageParam{}
			if m.Content != "" || len(m.ToolCalls) == 0 {
				a.Content.OfString = oai.String(m.Content)
			}
			for _, tc := range m.ToolCalls {
				a.ToolCalls = append(a.ToolCalls, oai.ChatCompletionMessageToolCallUnionParam{
					OfFunction: &oai.ChatCompletionMessageFunctionToolCallParam{
						ID:       tc.ID,
						Function: oai.ChatCompletionMessageFunctionToolCallFunctionParam{Name: tc.Name, Arguments: tc.Arguments},
					},
				})
			}
			p.Messages = append(p.Messages, oai.ChatCompletionMessageParamUnion{OfAssistant: &a})
		default:
			return p, fmt.Errorf("openai: unknown message role %q", m.Role)
		}
	}
	for _, t := range req.Tools {
		schema, err := chat.Schema(t.Parameters)
		if err != nil {
			return p, fmt.Errorf("openai: tool %s: %w", t.Name, err)
		}
		p.Tools = append(p.Tools, oai.ChatCompletionFunctionTool(shared.FunctionDefinitionParam{
			Name:        t.Name,
			Description: oai.String(t.Description),
			Parameters:  schema,
		}))
	}
	if o.ReasoningEffort != "" {
		p.ReasoningEffort = shared.ReasoningEffort(o.ReasoningEffort)
	} else {
		p.Temperature = oai.Float(o.Temperature)
	}
	if o.MaxTokens > 0 {
		if o.LegacyMaxTokens {
			p.MaxTokens = oai.Int(int64(o.MaxTokens))
		} else {
			p.MaxCompletionTokens = oai.Int(int64(o.MaxTokens))
		}
	}
	if o.Seed != nil {
		p.Seed = oai.Int(*o.Seed)
	}
	return p, nil
}

func (c *Chat) reply(req agent.Request, resp *oai.ChatCompletion) agent.Reply {
	choice := resp.Choices[0]
	msg := choice.Message
	var thinking []string
	fieldChars := 0 // thinking from a reasoning field, which the content does not hold
	for _, f := range c.opts.ReasoningFields {
		// Unknown fields are kept raw (the SDK marks them not Valid).
		field, ok := msg.JSON.ExtraFields[f]
		if !ok {
			continue
		}
		var s string
		if json.Unmarshal([]byte(field.Raw()), &s) == nil && s != "" {
			thinking = append(thinking, s)
			fieldChars = len(s)
			break
		}
	}
	think, narration := SplitThink(msg.Content)
	if think != "" {
		thinking = append(thinking, think)
	}
	if msg.Refusal != "" {
		// The refusal is what the model said instead of an answer.
		narration = strings.TrimSpace(narration + "\n" + msg.Refusal)
	}
	r := agent.Reply{
		Thinking:  strings.Join(thinking, "\n"),
		Narration: narration,
		Usage:     chatUsage(req, resp),
	}
	if r.Usage.Estimated {
		// The thinking is output too: a reasoning field's text beside the
		// content, an inline <think> block within it.
		r.Usage.Output += estTokens(fieldChars)
		r.Usage.Reasoning = estTokens(fieldChars + len(think))
	}
	turn := chat.Turn(req.Messages)
	for i, tc := range msg.ToolCalls {
		if tc.Type != "" && tc.Type != "function" {
			continue
		}
		id := tc.ID
		if id == "" {
			id = fmt.Sprintf("call_%d_%d", turn, i)
		}
		r.ToolCalls = append(r.ToolCalls, agent.ToolCall{ID: id, Name: tc.Function.Name, Arguments: tc.Function.Arguments})
	}
	r.Stop, r.StopDetail = chatStop(choice.FinishReason, msg.Refusal, r)
	return r
}

// chatStop maps a Chat Completions choice's finish_reason (and a non-empty
// message.refusal, which OpenAI sends with finish_reason "stop") onto the
// loop's stop reasons. The detail is the provider's raw value, or
// "refusal" when the refusal field decided.
//
//	stop                          end (tool_use when the message has calls)
//	tool_calls, function_call     tool_use (incomplete without a readable call)
//	length                        length
//	content_filter                refused
//	insufficient_system_resource  incomplete (DeepSeek)
//	abort                         incomplete (vLLM)
//	anything else, or missing     see chat.Unknown
func chatStop(finish, refusal string, r agent.Reply) (agent.StopReason, string) {
	if refusal != "" && finish != "content_filter" {
		return agent.StopRefused, "refusal"
	}
	switch finish {
	case "stop":
		return chat.Ended(len(r.ToolCalls)), finish
	case "tool_calls", "function_call":
		return chat.ToolUse(len(r.ToolCalls)), finish
	case "length":
		return agent.StopLength, finish
	case "content_filter":
		return agent.StopRefused, finish
	case "insufficient_system_resource", "abort":
		return agent.StopIncomplete, finish
	}
	return chat.Unknown(r.Narration, len(r.ToolCalls)), finish
}

// SplitThink separates a leading <think>…</think> block, which some
// OpenAI-compatible servers leave inside the content, from the narration.
func SplitThink(content string) (thinking, narration string) {
	s := strings.TrimLeft(content, " \t\r\n")
	if !strings.HasPrefix(s, "<think>") {
		return "", content
	}
	end := strings.Index(s, "</think>")
	if end < 0 {
		return strings.TrimSpace(strings.TrimPrefix(s, "<think>")), ""
	}
	return strings.TrimSpace(s[len("<think>"):end]), strings.TrimLeft(s[end+len("</think>"):], " \t\r\n")
}

// chatUsage reads a completion's usage: prompt_tokens (cached ones
// included), prompt_tokens_details.cached_tokens and cache_write_tokens,
// completion_tokens (reasoning included) and
// completion_tokens_details.reasoning_tokens; DeepSeek reports its cache
// hits as prompt_cache_hit_tokens instead. A completion without a usage
// object (some OpenAI-compatible servers send none) gets counts estimated
// from the text, marked Estimated.
func chatUsage(req agent.Request, resp *oai.ChatCompletion) agent.Usage {
	u := resp.Usage
	if !resp.JSON.Usage.Valid() {
		return EstimateUsage(req, resp.Choices[0].Message.Content, resp.Choices[0].Message.ToolCalls)
	}
	out := agent.Usage{
		Input:       int(u.PromptTokens),
		Output:      int(u.CompletionTokens),
		Reasoning:   int(u.CompletionTokensDetails.ReasoningTokens),
		CachedInput: int(u.PromptTokensDetails.CachedTokens),
		CacheWrite:  int(u.PromptTokensDetails.CacheWriteTokens),
	}
	if f, ok := u.JSON.ExtraFields["prompt_cache_hit_tokens"]; ok && out.CachedInput == 0 {
		var hit int
		if json.Unmarshal([]byte(f.Raw()), &hit) == nil {
			out.CachedInput = hit
		}
	}
	return out
}

// EstimateUsage counts a call's tokens from its text, about four
// characters a token, when the provider reported none; the usage is marked
// Estimated.
func EstimateUsage(req agent.Request, content string, calls []oai.ChatCompletionMessageToolCallUnion) agent.Usage {
	in := len(req.System)
	for _, m := range req.Messages {
		in += len(m.Content)
		for _, tc := range m.ToolCalls {
			in += len(tc.Name) + len(tc.Arguments)
		}
	}
	for _, t := range req.Tools {
		in += len(t.Name) + len(t.Description)
	}
	out := len(content)
	for _, tc := range calls {
		out += len(tc.Function.Name) + len(tc.Function.Arguments)
	}
	return agent.Usage{Input: estTokens(in), Output: estTokens(out), Estimated: true}
}

// estTokens is a text's token count at about four characters a token.
func estTokens(chars int) int {
	const perToken = 4
	return (chars + perToken - 1) / perToken
}
