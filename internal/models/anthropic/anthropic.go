// Package anthropic drives Claude models through the official
// anthropic-sdk-go Messages API with tools. Extended-thinking blocks are
// kept as thinking and sent back unchanged, signatures included, on later
// turns; redacted thinking is kept and marks the reply Redacted.
package anthropic

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	sdk "github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/option"

	"github.com/killchain/killchain/internal/agent"
	"github.com/killchain/killchain/internal/models/internal/chat"
	"github.com/killchain/killchain/internal/models/limits"
)

// DefaultBaseURL is Anthropic's API.
const DefaultBaseURL = "https://api.anthropic.com"

// MinThinkingBudget is the smallest thinking budget the API accepts.
const MinThinkingBudget = 1024

const blobKind = "anthropic"

// Options configure the driver; the key arrives already read from the
// environment.
type Options struct {
	Model          string
	BaseURL        string
	APIKey         string
	Temperature    float64
	MaxTokens      int
	Thinking       bool
	ThinkingBudget int // tokens; below MinThinkingBudget is raised to it
	HTTPClient     *http.Client
	Caller         *limits.Caller
}

// Model is the Anthropic driver.
type Model struct {
	opts   Options
	client sdk.Client
}

var _ agent.Model = (*Model)(nil)

// New returns an Anthropic driver. It ignores ANTHROPIC_* environment
// defaults (the caller resolves the key) and turns the SDK's retries off.
func New(opts Options) (*Model, error) {
	if opts.Model == "" {
		return nil, fmt.Errorf("anthropic: model name is empty")
	}
	if opts.Caller == nil {
		return nil, fmt.Errorf("anthropic: no caller")
	}
	base := opts.BaseURL
	if base == "" {
		base = DefaultBaseURL
	}
	hc := opts.HTTPClient
	if hc == nil {
		hc = &http.Client{Transport: limits.Transport(nil)}
	}
	client := sdk.NewClient(
		option.WithoutEnvironmentDefaults(),
		option.WithBaseURL(base),
		option.WithAPIKey(opts.APIKey),
		option.WithHTTPClient(hc),
		option.WithMaxRetries(0),
	)
	return &Model{opts: opts, client: client}, nil
}

// Generate implements agent.Model.
func (m *Model) Generate(ctx context.Context, req agent.Request) (agent.Reply, error) {
	params, err := m.params(req)
	if err != nil {
		return agent.Reply{}, err
	}
	var resp *sdk.Message
	st, err := m.opts.Caller.Do(ctx, func(ctx context.Context) error {
		r, err := m.client.Messages.New(ctx, params, m.callOptions()...)
		if err != nil {
			return err
		}
		if r == nil || r.Type != "message" || len(r.Content) == 0 && r.StopReason == "" {
			return fmt.Errorf("anthropic: reply is not a complete message")
		}
		resp = r
		return nil
	})
	if err != nil {
		return agent.Reply{}, err
	}
	r := reply(resp)
	r.Usage.RateLimited = st.Throttled
	return r, nil
}

func (m *Model) params(req agent.Request) (sdk.MessageNewParams, error) {
	o := m.opts
	maxTokens := o.MaxTokens
	if maxTokens <= 0 {
		maxTokens = 2048
	}
	p := sdk.MessageNewParams{Model: sdk.Model(o.Model)}
	if req.System != "" {
		p.System = []sdk.TextBlockParam{{Text: req.System}}
	}
	msgs, err := messages(req.Messages)
	if err != nil {
		return p, err
	}
	p.Messages = msgs
	for _, t := range req.Tools {
		schema, err := chat.Schema(t.Parameters)
		if err != nil {
			return p, fmt.Errorf("anthropic: tool %s: %w", t.Name, err)
		}
		in := sdk.ToolInputSchemaParam{Properties: schema["properties"], ExtraFields: map[string]any{}}
		for k, v := range schema {
			switch k {
			case "type", "properties":
			case "required":
				for _, r := range asStrings(v) {
					in.Required = append(in.Required, r)
				}
			default:
				in.ExtraFields[k] = v
			}
		}
		p.Tools = append(p.Tools, sdk.ToolUnionParam{OfTool: &sdk.ToolParam{
			Name: t.Name, Description: sdk.String(t.Description), InputSchema: in,
		}})
	}
	if o.Thinking {
		budget := max(o.ThinkingBudget, MinThinkingBudget)
		if maxTokens <= budget {
			maxTokens += budget // the budget counts inside max_tokens
		}
		p.Thinking = sdk.ThinkingConfigParamOfEnabled(int64(budget))
	}
	p.MaxTokens = int64(maxTokens)
	return p, nil
}

// callOptions sets the temperature, which this SDK version's params do not
// model; extended thinking requires the default, so it is left out then.
func (m *Model) callOptions() []option.RequestOption {
	if m.opts.Thinking {
		return nil
	}
	return []option.RequestOption{option.WithJSONSet("temperature", m.opts.Temperature)}
}

func asStrings(v any) []string {
	list, _ := v.([]any)
	var out []string
	for _, x := range list {
		if s, ok := x.(string); ok {
			out = append(out, s)
		}
	}
	return out
}

// messages converts the history. Consecutive tool results become one user
// message of tool_result blocks, as the API requires.
func messages(history []agent.Message) ([]sdk.MessageParam, error) {
	var out []sdk.MessageParam
	var results []sdk.ContentBlockParamUnion
	flush := func() {
		if len(results) > 0 {
			out = append(out, sdk.NewUserMessage(results...))
			results = nil
		}
	}
	for _, m := range history {
		if m.Role != agent.RoleTool {
			flush()
		}
		switch m.Role {
		case agent.RoleUser:
			out = append(out, sdk.NewUserMessage(sdk.NewTextBlock(m.Content)))
		case agent.RoleTool:
			results = append(results, sdk.NewToolResultBlock(m.ToolCallID, m.Content, m.IsError))
		case agent.RoleAssistant:
			blocks, err := assistantBlocks(m)
			if err != nil {
				return nil, err
			}
			out = append(out, sdk.NewAssistantMessage(blocks...))
		default:
			return nil, fmt.Errorf("anthropic: unknown message role %q", m.Role)
		}
	}
	flush()
	return out, nil
}

// assistantBlocks replays the stored content blocks unchanged (thinking with
// its signature, redacted thinking, text, tool_use); without them it
// rebuilds text and tool_use blocks from the message.
func assistantBlocks(m agent.Message) ([]sdk.ContentBlockParamUnion, error) {
	if items := chat.Decode(blobKind, m.Provider); items != nil {
		var blocks []sdk.ContentBlockParamUnion
		for _, raw := range items {
			var b sdk.ContentBlockUnion
			if err := json.Unmarshal(raw, &b); err != nil {
				return nil, fmt.Errorf("anthropic: stored content block: %w", err)
			}
			blocks = append(blocks, b.ToParam())
		}
		return blocks, nil
	}
	var blocks []sdk.ContentBlockParamUnion
	if m.Content != "" {
		blocks = append(blocks, sdk.NewTextBlock(m.Content))
	}
	for _, tc := range m.ToolCalls {
		blocks = append(blocks, sdk.NewToolUseBlock(tc.ID, chat.ObjectArgs(tc.Arguments), tc.Name))
	}
	if len(blocks) == 0 {
		blocks = append(blocks, sdk.NewTextBlock("(no reply)"))
	}
	return blocks, nil
}

func reply(resp *sdk.Message) agent.Reply {
	var r agent.Reply
	var thinking, narration []string
	var keep []json.RawMessage
	for _, b := range resp.Content {
		switch b.Type {
		case "thinking":
			thinking = append(thinking, b.Thinking)
		case "redacted_thinking":
			r.Redacted = true
		case "text":
			narration = append(narration, b.Text)
		case "tool_use":
			args := string(b.Input)
			if args == "" {
				args = "{}"
			}
			r.ToolCalls = append(r.ToolCalls, agent.ToolCall{ID: b.ID, Name: b.Name, Arguments: args})
		}
		keep = append(keep, json.RawMessage(b.RawJSON()))
	}
	r.Thinking = strings.Join(thinking, "\n\n")
	r.Narration = strings.Join(narration, "\n")
	u := resp.Usage
	// input_tokens leaves out the tokens read from the prompt cache
	// (cache_read_input_tokens) and written to it
	// (cache_creation_input_tokens); Input counts all three, with the two
	// kept apart for their own prices.
	r.Usage = agent.Usage{
		Input:       int(u.InputTokens + u.CacheCreationInputTokens + u.CacheReadInputTokens),
		Output:      int(u.OutputTokens),
		Reasoning:   int(u.OutputTokensDetails.ThinkingTokens),
		CachedInput: int(u.CacheReadInputTokens),
		CacheWrite:  int(u.CacheCreationInputTokens),
	}
	r.Provider = chat.Encode(blobKind, keep)
	r.StopDetail = string(resp.StopReason)
	r.Stop = stop(r.StopDetail, r)
	return r
}

// stop maps the Messages API's stop_reason onto the loop's stop reasons;
// the detail is the raw value.
//
//	end_turn, stop_sequence          end (tool_use when the reply has calls)
//	tool_use                         tool_use (incomplete without a tool_use block)
//	max_tokens                       length
//	model_context_window_exceeded    length
//	refusal                          refused
//	pause_turn                       incomplete
//	anything else, or missing        see chat.Unknown
func stop(reason string, r agent.Reply) agent.StopReason {
	switch sdk.StopReason(reason) {
	case sdk.StopReasonEndTurn, sdk.StopReasonStopSequence:
		return chat.Ended(len(r.ToolCalls))
	case sdk.StopReasonToolUse:
		return chat.ToolUse(len(r.ToolCalls))
	case sdk.StopReasonMaxTokens, sdk.StopReasonModelContextWindowExceeded:
		return agent.StopLength
	case sdk.StopReasonRefusal:
		return agent.StopRefused
	case sdk.StopReasonPauseTurn:
		return agent.StopIncomplete
	}
	return chat.Unknown(r.Narration, len(r.ToolCalls))
}
