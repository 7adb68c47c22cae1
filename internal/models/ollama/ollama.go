// Package ollama drives models served by Ollama through its official Go
// client (github.com/ollama/ollama/api): streamed chat with tools, think and
// options. The reply's thinking is the hidden thinking, its content the
// narration, its tool_calls the calls.
package ollama

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"strings"

	"github.com/ollama/ollama/api"

	"github.com/killchain/killchain/internal/agent"
	"github.com/killchain/killchain/internal/models/internal/chat"
	"github.com/killchain/killchain/internal/models/limits"
)

// DefaultHost is where Ollama listens unless told otherwise.
const DefaultHost = "http://127.0.0.1:11434"

// Options configure the driver.
type Options struct {
	Model           string
	Host            string // "" means OLLAMA_HOST, then DefaultHost
	Temperature     float64
	MaxTokens       int // num_predict
	Seed            *int64
	Thinking        bool
	ReasoningEffort string // sent as think level (gpt-oss: low|medium|high) when thinking
	HTTPClient      *http.Client
	Caller          *limits.Caller
}

// Model is the Ollama driver.
type Model struct {
	opts   Options
	client *api.Client
}

var _ agent.Model = (*Model)(nil)

// HostURL resolves a host setting: the given value, else OLLAMA_HOST, else
// DefaultHost; a bare host:port gets http://.
func HostURL(host string) (*url.URL, error) {
	if host == "" {
		host = os.Getenv("OLLAMA_HOST")
	}
	if host == "" {
		host = DefaultHost
	}
	if !strings.Contains(host, "://") {
		host = "http://" + host
	}
	u, err := url.Parse(host)
	if err != nil {
		return nil, fmt.Errorf("ollama: bad host %q: %w", host, err)
	}
	if u.Port() == "" && u.Scheme == "http" {
		u.Host += ":11434"
	}
	return u, nil
}

// New returns an Ollama driver.
func New(opts Options) (*Model, error) {
	if opts.Model == "" {
		return nil, fmt.Errorf("ollama: model name is empty")
	}
	if opts.Caller == nil {
		return nil, fmt.Errorf("ollama: no caller")
	}
	u, err := HostURL(opts.Host)
	if err != nil {
		return nil, err
	}
	hc := opts.HTTPClient
	if hc == nil {
		hc = &http.Client{Transport: limits.Transport(nil)}
	}
	return &Model{opts: opts, client: api.NewClient(u, hc)}, nil
}

// errIncomplete is a stream that ended without its final chunk.
var errIncomplete = errors.New("ollama: stream ended before the final chunk")

// Generate implements agent.Model.
func (m *Model) Generate(ctx context.Context, req agent.Request) (agent.Reply, error) {
	creq, err := m.request(req)
	if err != nil {
		return agent.Reply{}, err
	}
	var r agent.Reply
	turn := chat.Turn(req.Messages)
	st, err := m.opts.Caller.Do(ctx, func(ctx context.Context) error {
		r = agent.Reply{}
		var thinking, content strings.Builder
		done := false
		err := m.client.Chat(ctx, creq, func(c api.ChatResponse) error {
			thinking.WriteString(c.Message.Thinking)
			content.WriteString(c.Message.Content)
			for _, tc := range c.Message.ToolCalls {
				id := tc.ID
				if id == "" {
					id = fmt.Sprintf("call_%d_%d", turn, len(r.ToolCalls))
				}
				r.ToolCalls = append(r.ToolCalls, agent.ToolCall{ID: id, Name: tc.Function.Name, Arguments: tc.Function.Arguments.String()})
			}
			if c.Done {
				done = true
				// prompt_eval_count and eval_count; Ollama reports no
				// reasoning count apart (eval_count includes thinking).
				r.Usage = agent.Usage{Input: c.PromptEvalCount, Output: c.EvalCount}
				r.StopDetail = c.DoneReason
			}
			return nil
		})
		if err != nil {
			return err
		}
		if !done {
			return errIncomplete
		}
		r.Thinking = thinking.String()
		r.Narration = content.String()
		r.Stop = stop(r.StopDetail, r)
		return nil
	})
	if err != nil {
		return agent.Reply{}, err
	}
	if r.Usage.Input == 0 && r.Usage.Output == 0 {
		// A final chunk without counts: estimated from the text, and marked.
		r.Usage = estimate(req, r)
	}
	r.Usage.RateLimited = st.Throttled
	return r, nil
}

// estimate counts a call's tokens from its text, about four characters a
// token, marked Estimated.
func estimate(req agent.Request, r agent.Reply) agent.Usage {
	in := len(req.System)
	for _, m := range req.Messages {
		in += len(m.Content)
	}
	out := len(r.Thinking) + len(r.Narration)
	for _, tc := range r.ToolCalls {
		out += len(tc.Name) + len(tc.Arguments)
	}
	return agent.Usage{Input: (in + 3) / 4, Output: (out + 3) / 4, Estimated: true}
}

// stop maps the final chunk's done_reason onto the loop's stop reasons;
// the detail is the raw value. A stream that ends without its final chunk
// (done=false) is not a reply at all: Generate retries it and then fails
// with a provider error.
//
//	stop                       end (tool_use when the reply has calls)
//	length                     length
//	load, unload               incomplete (the model was loaded or unloaded, nothing generated)
//	anything else, or missing  see chat.Unknown
func stop(reason string, r agent.Reply) agent.StopReason {
	switch reason {
	case "stop":
		return chat.Ended(len(r.ToolCalls))
	case "length":
		return agent.StopLength
	case "load", "unload":
		return agent.StopIncomplete
	}
	return chat.Unknown(r.Narration, len(r.ToolCalls))
}

func (m *Model) request(req agent.Request) (*api.ChatRequest, error) {
	o := m.opts
	cr := &api.ChatRequest{Model: o.Model, Options: map[string]any{"temperature": o.Temperature}}
	if o.MaxTokens > 0 {
		cr.Options["num_predict"] = o.MaxTokens
	}
	if o.Seed != nil {
		cr.Options["seed"] = *o.Seed
	}
	switch {
	case o.Thinking && o.ReasoningEffort != "":
		cr.Think = &api.ThinkValue{Value: o.ReasoningEffort}
	default:
		cr.Think = &api.ThinkValue{Value: o.Thinking}
	}
	if req.System != "" {
		cr.Messages = append(cr.Messages, api.Message{Role: "system", Content: req.System})
	}
	for _, msg := range req.Messages {
		switch msg.Role {
		case agent.RoleUser:
			cr.Messages = append(cr.Messages, api.Message{Role: "user", Content: msg.Content})
		case agent.RoleTool:
			cr.Messages = append(cr.Messages, api.Message{Role: "tool", Content: msg.Content, ToolName: msg.ToolName, ToolCallID: msg.ToolCallID})
		case agent.RoleAssistant:
			am := api.Message{Role: "assistant", Content: msg.Content, Thinking: msg.Thinking}
			for i, tc := range msg.ToolCalls {
				var args api.ToolCallFunctionArguments
				if err := json.Unmarshal(chat.ObjectArgs(tc.Arguments), &args); err != nil {
					return nil, fmt.Errorf("ollama: tool call arguments: %w", err)
				}
				am.ToolCalls = append(am.ToolCalls, api.ToolCall{ID: tc.ID, Function: api.ToolCallFunction{Index: i, Name: tc.Name, Arguments: args}})
			}
			cr.Messages = append(cr.Messages, am)
		default:
			return nil, fmt.Errorf("ollama: unknown message role %q", msg.Role)
		}
	}
	for _, t := range req.Tools {
		var params api.ToolFunctionParameters
		raw := t.Parameters
		if len(raw) == 0 {
			raw = json.RawMessage(`{"type":"object","properties":{}}`)
		}
		if err := json.Unmarshal(raw, &params); err != nil {
			return nil, fmt.Errorf("ollama: tool %s schema: %w", t.Name, err)
		}
		cr.Tools = append(cr.Tools, api.Tool{Type: "function", Function: api.ToolFunction{Name: t.Name, Description: t.Description, Parameters: params}})
	}
	return cr, nil
}
