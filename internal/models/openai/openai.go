// Package openai drives OpenAI models through the official openai-go SDK:
// Chat Completions with function tools (gpt-4o-mini and any
// OpenAI-compatible server) and the Responses API for reasoning models
// (gpt-5-mini), whose encrypted reasoning is carried between turns.
package openai

import (
	"fmt"
	"net/http"
	"strings"

	"github.com/openai/openai-go/v3/option"

	"github.com/killchain/killchain/internal/models/limits"
)

// DefaultBaseURL is OpenAI's API.
const DefaultBaseURL = "https://api.openai.com/v1"

// Options configure a driver. Credentials arrive here already read from the
// environment by the caller.
type Options struct {
	Model           string
	BaseURL         string // "" means DefaultBaseURL
	APIKey          string // "" sends no Authorization header
	Temperature     float64
	MaxTokens       int
	Seed            *int64
	Thinking        bool
	ReasoningEffort string // minimal | low | medium | high; "" leaves the API default
	HTTPClient      *http.Client
	Caller          *limits.Caller

	// Chat dialect knobs for OpenAI-compatible servers.

	// ReasoningFields are assistant-message fields read as hidden thinking
	// (DeepSeek's reasoning_content, vLLM's reasoning). They are never sent back.
	ReasoningFields []string
	// LegacyMaxTokens sends max_tokens instead of max_completion_tokens.
	LegacyMaxTokens bool
	// Extra sets top-level request fields (sjson paths) on every call.
	Extra map[string]any
}

// requestOptions builds the SDK options without the SDK's own environment
// defaults (so OPENAI_API_KEY never reaches another provider's server) and
// with the SDK's retries off (the Caller's retries are the only ones).
func (o Options) requestOptions() []option.RequestOption {
	base := o.BaseURL
	if base == "" {
		base = DefaultBaseURL
	}
	hc := o.HTTPClient
	if hc == nil {
		hc = &http.Client{Transport: limits.Transport(nil)}
	}
	opts := []option.RequestOption{
		option.WithBaseURL(strings.TrimRight(base, "/") + "/"),
		option.WithHTTPClient(hc),
		option.WithMaxRetries(0),
		option.WithAPIKey(o.APIKey),
	}
	for k, v := range o.Extra {
		opts = append(opts, option.WithJSONSet(k, v))
	}
	return opts
}

func (o Options) validate() error {
	if o.Model == "" {
		return fmt.Errorf("openai: model name is empty")
	}
	if o.Caller == nil {
		return fmt.Errorf("openai: no caller")
	}
	return nil
}
