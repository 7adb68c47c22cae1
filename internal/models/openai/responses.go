package openai

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	oai "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/responses"
	"github.com/openai/openai-go/v3/shared"

	"github.com/killchain/killchain/internal/agent"
	"github.com/killchain/killchain/internal/models/internal/chat"
)

// blobKind tags the Provider state the Responses driver carries.
const blobKind = "openai-responses"

// Responses is a Responses API driver for reasoning models. It asks for
// reasoning summaries (kept as thinking) and, with store=false, for the
// encrypted reasoning items, which it stores in the assistant message's
// Provider blob and sends back on later turns as the API requires.
type Responses struct {
	opts Options
	svc  responses.ResponseService
}

var _ agent.Model = (*Responses)(nil)

// NewResponses returns a Responses API driver.
func NewResponses(opts Options) (*Responses, error) {
	if err := opts.validate(); err != nil {
		return nil, err
	}
	return &Responses{opts: opts, svc: responses.NewResponseService(opts.requestOptions()...)}, nil
}

// Generate implements agent.Model.
func (d *Responses) Generate(ctx context.Context, req agent.Request) (agent.Reply, error) {
	params, err := d.params(req)
	if err != nil {
		return agent.Reply{}, err
	}
	var resp *responses.Response
	st, err := d.opts.Caller.Do(ctx, func(ctx context.Context) error {
		r, err := d.svc.New(ctx, params)
		if err != nil {
			return err
		}
		if r == nil {
			// A body of null decodes to no response at all.
			return fmt.Errorf("response is empty")
		}
		if r.Status == responses.ResponseStatusFailed {
			return fmt.Errorf("response failed: %s", r.Error.Message)
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

func (d *Responses) reasoning() bool { return d.opts.Thinking || d.opts.ReasoningEffort != "" }

func (d *Responses) params(req agent.Request) (responses.ResponseNewParams, error) {
	o := d.opts
	p := responses.ResponseNewParams{
		Model: shared.ResponsesModel(o.Model),
		Store: oai.Bool(false),
	}
	if req.System != "" {
		p.Instructions = oai.String(req.System)
	}
	input, err := inputItems(req.Messages)
	if err != nil {
		return p, err
	}
	p.Input = responses.ResponseNewParamsInputUnion{OfInputItemList: input}
	for _, t := range req.Tools {
		schema, err := chat.Schema(t.Parameters)
		if err != nil {
			return p, fmt.Errorf("openai: tool %s: %w", t.Name, err)
		}
		p.Tools = append(p.Tools, responses.ToolUnionParam{OfFunction: &responses.FunctionToolParam{
			Name:        t.Name,
			Description: oai.String(t.Description),
			Parameters:  schema,
			Strict:      oai.Bool(false),
		}})
	}
	if d.reasoning() {
		p.Include = []responses.ResponseIncludable{responses.ResponseIncludableReasoningEncryptedContent}
		p.Reasoning = shared.ReasoningParam{Summary: shared.ReasoningSummaryAuto}
		if o.ReasoningEffort != "" {
			p.Reasoning.Effort = shared.ReasoningEffort(o.ReasoningEffort)
		}
	} else {
		p.Temperature = oai.Float(o.Temperature)
	}
	if o.MaxTokens > 0 {
		p.MaxOutputTokens = oai.Int(int64(o.MaxTokens))
	}
	return p, nil
}

// inputItems turns the history into input items. Assistant turns replay
// their stored output items (reasoning with encrypted content, messages,
// function calls) when present.
func inputItems(msgs []agent.Message) (responses.ResponseInputParam, error) {
	var in responses.ResponseInputParam
	for _, m := range msgs {
		switch m.Role {
		case agent.RoleUser:
			in = append(in, responses.ResponseInputItemParamOfMessage(m.Content, responses.EasyInputMessageRoleUser))
		case agent.RoleTool:
			out := responses.ResponseInputItemParamOfFunctionCallOutput(m.Content)
			out.OfFunctionCallOutput.CallID = oai.String(m.ToolCallID)
			in = append(in, out)
		case agent.RoleAssistant:
			if items := chat.Decode(blobKind, m.Provider); items != nil {
				replayed, err := replay(items)
				if err != nil {
					return nil, err
				}
				in = append(in, replayed...)
				continue
			}
			if m.Content != "" {
				in = append(in, responses.ResponseInputItemParamOfMessage(m.Content, responses.EasyInputMessageRoleAssistant))
			}
			for _, tc := range m.ToolCalls {
				in = append(in, responses.ResponseInputItemUnionParam{OfFunctionCall: &responses.ResponseFunctionToolCallParam{
					CallID: tc.ID, Name: tc.Name, Arguments: tc.Arguments,
				}})
			}
		default:
			return nil, fmt.Errorf("openai: unknown message role %q", m.Role)
		}
	}
	return in, nil
}

func replay(items []json.RawMessage) ([]responses.ResponseInputItemUnionParam, error) {
	var out []responses.ResponseInputItemUnionParam
	for _, raw := range items {
		var it responses.ResponseOutputItemUnion
		if err := json.Unmarshal(raw, &it); err != nil {
			return nil, fmt.Errorf("openai: stored output item: %w", err)
		}
		switch it.Type {
		case "reasoning":
			p := it.AsReasoning().ToParam()
			out = append(out, responses.ResponseInputItemUnionParam{OfReasoning: &p})
		case "function_call":
			p := it.AsFunctionCall().ToParam()
			out = append(out, responses.ResponseInputItemUnionParam{OfFunctionCall: &p})
		case "message":
			p := it.AsMessage().ToParam()
			out = append(out, responses.ResponseInputItemUnionParam{OfOutputMessage: &p})
		}
	}
	return out, nil
}

func reply(resp *responses.Response) agent.Reply {
	var r agent.Reply
	var thinking, narration []string
	var keep []json.RawMessage
	refused := false
	for _, it := range resp.Output {
		switch it.Type {
		case "reasoning":
			rs := it.AsReasoning()
			for _, s := range rs.Summary {
				thinking = append(thinking, s.Text)
			}
			for _, c := range rs.Content {
				thinking = append(thinking, c.Text)
			}
			keep = append(keep, json.RawMessage(it.RawJSON()))
		case "message":
			for _, c := range it.AsMessage().Content {
				switch c.Type {
				case "output_text":
					narration = append(narration, c.Text)
				case "refusal":
					narration = append(narration, c.Refusal)
					refused = true
				}
			}
			keep = append(keep, json.RawMessage(it.RawJSON()))
		case "function_call":
			fc := it.AsFunctionCall()
			r.ToolCalls = append(r.ToolCalls, agent.ToolCall{ID: fc.CallID, Name: fc.Name, Arguments: fc.Arguments})
			keep = append(keep, json.RawMessage(it.RawJSON()))
		}
	}
	r.Thinking = strings.Join(thinking, "\n\n")
	r.Narration = strings.Join(narration, "\n")
	// input_tokens counts the cached ones (input_tokens_details.cached_tokens)
	// and output_tokens the reasoning ones.
	r.Usage = agent.Usage{
		Input:       int(resp.Usage.InputTokens),
		Output:      int(resp.Usage.OutputTokens),
		Reasoning:   int(resp.Usage.OutputTokensDetails.ReasoningTokens),
		CachedInput: int(resp.Usage.InputTokensDetails.CachedTokens),
	}
	r.Provider = chat.Encode(blobKind, keep)
	r.Stop, r.StopDetail = responsesStop(resp, refused, r)
	return r
}

// responsesStop maps a response's status and incomplete_details.reason
// onto the loop's stop reasons; refused says a message carried a refusal
// content part. The detail is the reason when the response is incomplete,
// "refusal" for a refusal part, and the status otherwise. A failed
// response never gets here: Generate makes it a provider error.
//
//	incomplete: content_filter            refused
//	refusal content part                  refused
//	incomplete: max_output_tokens         length
//	incomplete: any other reason          incomplete
//	completed                             end, or tool_use with calls
//	in_progress, queued, cancelled        incomplete
//	anything else, or missing             see chat.Unknown
func responsesStop(resp *responses.Response, refused bool, r agent.Reply) (agent.StopReason, string) {
	status := resp.Status
	reason := resp.IncompleteDetails.Reason
	switch {
	case status == responses.ResponseStatusIncomplete && reason == "content_filter":
		return agent.StopRefused, reason
	case refused:
		return agent.StopRefused, "refusal"
	}
	switch status {
	case responses.ResponseStatusIncomplete:
		switch reason {
		case "max_output_tokens":
			return agent.StopLength, reason
		case "":
			return agent.StopIncomplete, string(status)
		}
		return agent.StopIncomplete, reason
	case responses.ResponseStatusCompleted:
		return chat.Ended(len(r.ToolCalls)), string(status)
	case responses.ResponseStatusInProgress, responses.ResponseStatusQueued, responses.ResponseStatusCancelled:
		return agent.StopIncomplete, string(status)
	}
	return chat.Unknown(r.Narration, len(r.ToolCalls)), string(status)
}
