package openai

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/killchain/killchain/internal/agent"
	"github.com/killchain/killchain/internal/models/internal/fake"
	"github.com/killchain/killchain/internal/models/limits"
)

const noUsage = `{"id":"chatcmpl-x","object":"chat.completion","created":1,"model":"m",` +
	`"choices":[{"index":0,"message":{"role":"assistant","content":"twelve chars"},"finish_reason":"stop"}]}`

func TestChatUsage(t *testing.T) {
	t.Run("no usage object is estimated and marked", func(t *testing.T) {
		srv := fake.New(t, fake.Step{Body: noUsage})
		d, err := NewChat(Options{Model: "m", BaseURL: srv.URL + "/v1", Caller: testCaller()})
		if err != nil {
			t.Fatal(err)
		}
		r, err := d.Generate(context.Background(), agent.Request{System: "sixteen chars!!!", Messages: []agent.Message{{Role: agent.RoleUser, Content: "eight ch"}}})
		if err != nil {
			t.Fatal(err)
		}
		want(t, "usage", r.Usage, agent.Usage{Input: 6, Output: 3, Estimated: true})
	})
	// An estimate counts the thinking as output and as reasoning: a
	// reasoning field's text beside the content, an inline <think> block
	// within it (before, a reasoning field's thinking counted nothing).
	thinkTests := []struct {
		name    string
		message string
		want    agent.Usage
	}{
		{"reasoning field", `{"role":"assistant","content":"twelve chars","reasoning_content":"sixteen chars!!!"}`,
			agent.Usage{Input: 6, Output: 7, Reasoning: 4, Estimated: true}},
		{"inline think", `{"role":"assistant","content":"<think>eight ch</think>twelve chars"}`,
			agent.Usage{Input: 6, Output: 9, Reasoning: 2, Estimated: true}},
	}
	for _, tt := range thinkTests {
		t.Run("no usage object, thinking: "+tt.name, func(t *testing.T) {
			body := `{"id":"chatcmpl-x","object":"chat.completion","created":1,"model":"m",` +
				`"choices":[{"index":0,"message":` + tt.message + `,"finish_reason":"stop"}]}`
			srv := fake.New(t, fake.Step{Body: body})
			d, err := NewChat(Options{Model: "m", BaseURL: srv.URL + "/v1", Caller: testCaller(), ReasoningFields: []string{"reasoning_content"}})
			if err != nil {
				t.Fatal(err)
			}
			r, err := d.Generate(context.Background(), agent.Request{System: "sixteen chars!!!", Messages: []agent.Message{{Role: agent.RoleUser, Content: "eight ch"}}})
			if err != nil {
				t.Fatal(err)
			}
			want(t, "usage", r.Usage, tt.want)
		})
	}
	t.Run("429 answers are counted on the reply", func(t *testing.T) {
		srv := fake.New(t, fake.Step{Status: 429, Body: fake.Fixture("openai_ratelimit.json")}, fake.Step{Body: fake.Fixture("openai_chat_turn2.json")})
		d, err := NewChat(Options{Model: "gpt-4o-mini", BaseURL: srv.URL + "/v1", Caller: testCaller()})
		if err != nil {
			t.Fatal(err)
		}
		r, err := d.Generate(context.Background(), firstRequest(t))
		if err != nil {
			t.Fatal(err)
		}
		want(t, "rate limited", r.Usage.RateLimited, 1)
		want(t, "cached", r.Usage.CachedInput, 128)
	})
}

func TestFatalAnswers(t *testing.T) {
	tests := []struct {
		name   string
		status int
		hint   string
	}{
		{"401 names the key's variable", 401, "authentication refused: check the API key in GPU_KEY"},
		{"403 names the key and the model", 403, "permission denied: the API key in GPU_KEY may not use model served-id"},
		{"404 names the model", 404, "the server has no model served-id"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := fake.New(t, fake.Step{Status: tt.status, Body: `{"error":{"message":"the server's own reason","type":"invalid_request_error"}}`},
				fake.Step{Body: fake.Fixture("openai_chat_turn2.json")})
			c := testCaller()
			c.KeyEnv, c.Served = "GPU_KEY", "served-id"
			d, err := NewChat(Options{Model: "served-id", BaseURL: srv.URL + "/v1", Caller: c})
			if err != nil {
				t.Fatal(err)
			}
			_, err = d.Generate(context.Background(), firstRequest(t))
			var pe *limits.ProviderError
			if !errors.As(err, &pe) || !pe.Fatal() {
				t.Fatalf("error %v is not a fatal provider error", err)
			}
			if pe.Attempts != 1 || len(srv.Requests()) != 1 {
				t.Errorf("a %d was tried %d times", tt.status, pe.Attempts)
			}
			msg := err.Error()
			for _, w := range []string{tt.hint, "the server's own reason", "model test"} {
				if !strings.Contains(msg, w) {
					t.Errorf("message %q lacks %q", msg, w)
				}
			}
			if strings.Contains(msg, "provider error") {
				t.Errorf("message %q repeats the kind the run's error already names", msg)
			}
		})
	}
}
