package models

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/killchain/killchain/internal/models/internal/fake"
	"github.com/killchain/killchain/internal/models/limits"
	"github.com/killchain/killchain/internal/secrets"
)

// Fake keys: the leak checks search every error, log line and reply for them.
var testKeys = map[string]string{
	"OPENAI_API_KEY":    "sk-LEAKCHECK-openai-5f3a9c",
	"ANTHROPIC_API_KEY": "sk-ant-LEAKCHECK-anthropic-77d1",
	"DEEPSEEK_API_KEY":  "sk-LEAKCHECK-deepseek-0b2e",
	"GPU_BOX_KEY":       "box-LEAKCHECK-compat-c4d8",
}

type provider struct {
	name     string
	cfg      Config
	ok       fake.Step // a complete final reply
	errBody  string    // the provider's error document
	wantText string    // narration of ok
}

func providers() []provider {
	narr := "The quarterly page reports revenue up 4% and a new office in Lyon."
	return []provider{
		{"ollama", Config{Name: "local", Provider: Ollama, Model: "qwen3:8b"},
			fake.Step{Body: fake.Fixture("ollama_turn2.ndjson"), Stream: true, ContentType: "application/x-ndjson"}, fake.Fixture("ollama_error.json"), narr},
		{"openai chat", Config{Name: "mini", Provider: OpenAI, Model: "gpt-4o-mini"},
			fake.Step{Body: fake.Fixture("openai_chat_turn2.json")}, fake.Fixture("openai_error.json"), narr},
		{"openai responses", Config{Name: "reasoner", Provider: OpenAI, Model: "gpt-5-mini", API: "responses", Thinking: true},
			fake.Step{Body: fake.Fixture("openai_responses_turn2.json")}, fake.Fixture("openai_error.json"), narr},
		{"anthropic", Config{Name: "claude", Provider: Anthropic, Model: "claude-sonnet-4-5", Thinking: true},
			fake.Step{Body: fake.Fixture("anthropic_turn2.json")}, fake.Fixture("anthropic_error.json"), narr},
		{"deepseek", Config{Name: "ds", Provider: DeepSeek, Model: "deepseek-reasoner"},
			fake.Step{Body: fake.Fixture("deepseek_turn2.json")}, fake.Fixture("openai_error.json"), narr},
		{"openai_compatible", Config{Name: "box", Provider: OpenAICompatible, Model: "qwen3-8b", APIKeyEnv: "GPU_BOX_KEY"},
			fake.Step{Body: fake.Fixture("compat_turn2.json")}, fake.Fixture("openai_error.json"), narr},
	}
}

func point(cfg Config, url string) Config {
	if cfg.Provider == Ollama {
		cfg.Host = url
	} else {
		cfg.BaseURL = url
	}
	return cfg
}

type fault struct {
	name     string
	steps    func(p provider) []fake.Step
	ok       bool
	requests int
	slept    []time.Duration // nil: not checked
	errHas   string
	limit    int // limiter limit after the call; 0: not checked
}

func faults() []fault {
	errStep := func(p provider, status int) fake.Step {
		return fake.Step{Status: status, Body: p.errBody, EchoAuth: true}
	}
	return []fault{
		{name: "429 with Retry-After then success", ok: true, requests: 2, slept: []time.Duration{3 * time.Second}, limit: 2,
			steps: func(p provider) []fake.Step {
				s := errStep(p, 429)
				s.Header = map[string]string{"Retry-After": "3"}
				return []fake.Step{s, p.ok}
			}},
		{name: "500 then success", ok: true, requests: 2, limit: 4,
			steps: func(p provider) []fake.Step { return []fake.Step{errStep(p, 500), p.ok} }},
		{name: "persistent 500", ok: false, requests: 3, errHas: "3 attempt(s)",
			steps: func(p provider) []fake.Step { return []fake.Step{errStep(p, 500)} }},
		{name: "400 is not retried", ok: false, requests: 1,
			steps: func(p provider) []fake.Step { return []fake.Step{errStep(p, 400)} }},
		{name: "hung connection then success", ok: true, requests: 2,
			steps: func(p provider) []fake.Step { return []fake.Step{{Hang: true}, p.ok} }},
		{name: "persistent hang", ok: false, requests: 3, errHas: "no reply within",
			steps: func(p provider) []fake.Step { return []fake.Step{{Hang: true}} }},
		{name: "truncated body then success", ok: true, requests: 2,
			steps: func(p provider) []fake.Step {
				t := p.ok
				t.Truncate = true
				return []fake.Step{t, p.ok}
			}},
		{name: "persistent truncation", ok: false, requests: 3,
			steps: func(p provider) []fake.Step {
				t := p.ok
				t.Truncate = true
				return []fake.Step{t}
			}},
	}
}

// TestFaultsNeverLeakKeys drives every fault through every provider's real
// SDK against its fake server. Each fault ends in a successful retry or in
// an error wrapping ErrProvider (never an empty reply), and the fake keys,
// which the fake servers echo into their error bodies, appear in no error,
// log line or reply.
func TestFaultsNeverLeakKeys(t *testing.T) {
	for k, v := range testKeys {
		t.Setenv(k, v)
	}
	for _, p := range providers() {
		for _, f := range faults() {
			t.Run(p.name+"/"+f.name, func(t *testing.T) {
				srv := fake.New(t, f.steps(p)...)
				var logs bytes.Buffer
				logger := hclog.New(&hclog.LoggerOptions{Output: &logs, Level: hclog.Trace})
				var slept []time.Duration
				lim := limits.NewLimiter(4, 10)
				m, err := New(point(p.cfg, srv.URL), logger, WithLimiter(lim), WithPolicy(func(pol *limits.Policy) {
					pol.MaxRetries = 2
					pol.Timeout = 150 * time.Millisecond
					pol.Sleep = func(_ context.Context, d time.Duration) error { slept = append(slept, d); return nil }
				}))
				if err != nil {
					t.Fatal(err)
				}
				reply, err := m.Generate(context.Background(), fake.FirstRequest())
				if f.ok {
					if err != nil {
						t.Fatalf("err = %v, want a successful retry", err)
					}
					if reply.Narration != p.wantText {
						t.Errorf("narration = %q", reply.Narration)
					}
				} else {
					if !errors.Is(err, ErrProvider) {
						t.Fatalf("err = %v (reply %+v), want ErrProvider", err, reply)
					}
					if !strings.Contains(err.Error(), f.errHas) {
						t.Errorf("err = %q, want it to mention %q", err, f.errHas)
					}
				}
				if n := len(srv.Requests()); n != f.requests {
					t.Errorf("server saw %d requests, want %d", n, f.requests)
				}
				if f.slept != nil && fmt.Sprint(slept) != fmt.Sprint(f.slept) {
					t.Errorf("slept %v, want %v", slept, f.slept)
				}
				if f.limit != 0 && lim.Limit() != f.limit {
					t.Errorf("limit = %d, want %d", lim.Limit(), f.limit)
				}
				if lim.InUse() != 0 {
					t.Error("limiter slot leaked")
				}
				blob, _ := json.Marshal(reply)
				assertNoKey(t, "error", fmt.Sprintf("%v %+v", err, err))
				assertNoKey(t, "logs", logs.String())
				assertNoKey(t, "reply", string(blob))
				if !f.ok && f.requests > 1 && !strings.Contains(logs.String(), "retrying model call") {
					t.Errorf("retries were not logged: %s", logs.String())
				}
			})
		}
	}
}

// TestFakesEchoKeys proves the leak check can fail: the fakes receive the
// keys and put them into the error bodies the SDKs read.
func TestFakesEchoKeys(t *testing.T) {
	for k, v := range testKeys {
		t.Setenv(k, v)
	}
	for _, p := range providers() {
		if p.cfg.KeyEnv() == "" {
			continue
		}
		t.Run(p.name, func(t *testing.T) {
			srv := fake.New(t, fake.Step{Status: 400, Body: p.errBody, EchoAuth: true})
			m, err := New(point(p.cfg, srv.URL), nil)
			if err != nil {
				t.Fatal(err)
			}
			_, err = m.Generate(context.Background(), fake.FirstRequest())
			if err == nil {
				t.Fatal("no error from a 400")
			}
			key := testKeys[p.cfg.KeyEnv()]
			if got := srv.Requests()[0].Header.Get("Authorization"); !strings.Contains(got, key) {
				t.Fatalf("fake did not receive the key (Authorization %q)", secrets.New(key).Scrub(got))
			}
			if p.cfg.Provider == Anthropic && !strings.Contains(err.Error(), secrets.Redacted) {
				t.Errorf("anthropic error %q shows no scrubbed key, but its SDK puts the body in errors", err)
			}
		})
	}
}

func assertNoKey(t *testing.T, where, text string) {
	t.Helper()
	for env, key := range testKeys {
		if strings.Contains(text, key) {
			t.Errorf("%s contains the %s key", where, env)
		}
	}
}

func TestInvalidArgumentsPassThrough(t *testing.T) {
	t.Setenv("OPENAI_API_KEY", "sk-test-args")
	tests := []struct {
		name    string
		cfg     Config
		fixture string
		want    string
	}{
		{"chat", Config{Name: "c", Provider: OpenAI, Model: "gpt-4o-mini"}, "openai_chat_badargs.json", `{"url": "https://news.example.com/quart`},
		{"responses", Config{Name: "r", Provider: OpenAI, API: "responses", Model: "gpt-5-mini"}, "openai_responses_badargs.json", `{"url": "https://news.example.com/quart`},
		{"openai_compatible", Config{Name: "x", Provider: OpenAICompatible, Model: "q"}, "openai_chat_badargs.json", `{"url": "https://news.example.com/quart`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := fake.New(t, fake.Step{Body: fake.Fixture(tt.fixture)})
			m, err := New(point(tt.cfg, srv.URL), nil)
			if err != nil {
				t.Fatal(err)
			}
			r, err := m.Generate(context.Background(), fake.FirstRequest())
			if err != nil {
				t.Fatal(err)
			}
			if len(r.ToolCalls) == 0 || r.ToolCalls[0].Arguments != tt.want {
				t.Errorf("calls = %+v, want arguments %q verbatim", r.ToolCalls, tt.want)
			}
		})
	}
}

func TestNew(t *testing.T) {
	t.Setenv("OPENAI_API_KEY", "")
	t.Setenv("ANTHROPIC_API_KEY", "sk-ant-present-1234")
	tests := []struct {
		name    string
		cfg     Config
		wantErr error
		errHas  string
	}{
		{"scripted", Config{Name: "s", Provider: Scripted}, ErrScripted, ""},
		{"unknown provider", Config{Name: "u", Provider: "gemini", Model: "x"}, nil, "unknown provider"},
		{"missing key", Config{Name: "o", Provider: OpenAI, Model: "gpt-4o-mini"}, ErrProvider, "OPENAI_API_KEY is not set"},
		{"bad api", Config{Name: "o", Provider: Anthropic, Model: "m", API: "x"}, nil, ""},
		{"empty model", Config{Name: "e", Provider: Ollama}, nil, "empty"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, err := New(tt.cfg, nil)
			if tt.name == "bad api" { // the api setting only matters to openai
				if err != nil || m == nil {
					t.Fatalf("anthropic with api set: %v", err)
				}
				return
			}
			if err == nil {
				t.Fatal("no error")
			}
			if tt.wantErr != nil && !errors.Is(err, tt.wantErr) {
				t.Errorf("err = %v, want %v", err, tt.wantErr)
			}
			if !strings.Contains(err.Error(), tt.errHas) {
				t.Errorf("err = %q, want %q", err, tt.errHas)
			}
		})
	}
}
