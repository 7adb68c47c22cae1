package models

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
	"text/template"
	"time"

	"github.com/killchain/killchain/internal/agent"
	"github.com/killchain/killchain/internal/errkind"
	"github.com/killchain/killchain/internal/models/internal/fake"
	"github.com/killchain/killchain/internal/models/limits"
	"github.com/killchain/killchain/internal/results"
	"github.com/killchain/killchain/internal/study"
	"github.com/killchain/killchain/runner"
	"github.com/killchain/killchain/sandbox/local"
)

// e2eCase is one provider driven end to end through the runner.
type e2eCase struct {
	label    string
	kind     fake.Kind
	provider string
	model    string // the compliant model
	noticer  string // a model that names the payload only in its thinking; "" without thinking
	attrs    func(url string) map[string]string
	thinks   bool // replies carry thinking the driver keeps
	reasons  bool // replies report reasoning tokens
	textArgs bool // the wire carries arguments as text, which can be invalid JSON
	redacts  bool // first replies carry redacted thinking
}

func e2eCases() []e2eCase {
	q := strconv.Quote
	return []e2eCase{
		{label: "ollama", kind: fake.Ollama, provider: Ollama, model: "qwen3:8b", noticer: "qwen3:14b", thinks: true,
			attrs: func(u string) map[string]string {
				return map[string]string{"host": q(u), "thinking": "true", "seed": "11"}
			}},
		{label: "openai_chat", kind: fake.OpenAIChat, provider: OpenAI, model: "gpt-4o-mini", textArgs: true,
			attrs: func(u string) map[string]string { return map[string]string{"base_url": q(u + "/v1"), "api": q("chat")} }},
		{label: "openai_responses", kind: fake.Responses, provider: OpenAI, model: "gpt-5-mini", noticer: "gpt-5", thinks: true, reasons: true, textArgs: true,
			attrs: func(u string) map[string]string {
				return map[string]string{"base_url": q(u + "/v1"), "api": q("responses"), "thinking": "true", "reasoning_effort": q("low")}
			}},
		{label: "anthropic", kind: fake.Anthropic, provider: Anthropic, model: "claude-sonnet-4-5", noticer: "claude-opus-4-1", thinks: true, reasons: true, redacts: true,
			attrs: func(u string) map[string]string {
				return map[string]string{"base_url": q(u), "thinking": "true", "thinking_budget": "1024"}
			}},
		{label: "deepseek", kind: fake.DeepSeek, provider: DeepSeek, model: "deepseek-reasoner", noticer: "deepseek-reasoner-0528", thinks: true, reasons: true, textArgs: true,
			attrs: func(u string) map[string]string { return map[string]string{"base_url": q(u)} }},
		{label: "openai_compatible", kind: fake.Compatible, provider: OpenAICompatible, model: "qwen3-8b", noticer: "qwen3-32b", thinks: true, textArgs: true,
			attrs: func(u string) map[string]string {
				return map[string]string{"base_url": q(u + "/v1"), "api_key_env": q("GPU_BOX_KEY"), "thinking": "true"}
			}},
	}
}

// modelRef is one model block of a rendered study.
type modelRef struct{ Block, Name string }

// render fills testdata/e2e/relay.hcl.tmpl for a provider served at url.
func render(t *testing.T, c e2eCase, url string, refs []modelRef) []byte {
	t.Helper()
	tmpl := template.Must(template.ParseFiles(filepath.Join("testdata", "e2e", "relay.hcl.tmpl")))
	var b bytes.Buffer
	err := tmpl.Execute(&b, map[string]any{"Label": c.label, "Provider": c.provider, "Attrs": c.attrs(url), "Models": refs})
	if err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// sleeps records the waits a Caller asked for without waiting.
type sleeps struct {
	mu sync.Mutex
	d  []time.Duration
}

func (s *sleeps) sleep(_ context.Context, d time.Duration) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.d = append(s.d, d)
	return nil
}

func (s *sleeps) all() []time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]time.Duration(nil), s.d...)
}

// testFactory builds the study's models with the live drivers, a private
// limiter and a fast retry policy.
func testFactory(sl *sleeps, timeout time.Duration) runner.ModelFactory {
	return func(m *study.Model) (agent.Model, error) {
		cfg := Config{
			Name: m.Name, Provider: m.Provider, Model: m.ModelName, BaseURL: m.BaseURL, Host: m.Host,
			APIKeyEnv: m.APIKeyEnv, Temperature: m.Temperature, MaxTokens: m.MaxTokens, Seed: m.Seed,
			Thinking: m.Thinking, ThinkingBudget: m.ThinkingBudget, ReasoningEffort: m.ReasoningEffort, API: m.API,
		}
		return New(cfg, nil, WithLimiter(limits.NewLimiter(4, 10)), WithPolicy(func(p *limits.Policy) {
			p.MaxRetries = 2
			p.Timeout = timeout
			p.Sleep = sl.sleep
		}))
	}
}

// runStudy runs src into dir with the local sandbox.
func runStudy(t *testing.T, src []byte, dir string, resume bool, f runner.ModelFactory, rerun ...errkind.Kind) runner.Summary {
	t.Helper()
	s, diags := study.Parse("study.hcl", src)
	if diags.HasErrors() {
		t.Fatalf("study: %v\n%s", diags, src)
	}
	r, err := runner.New(s, runner.Options{Output: dir, Resume: resume, Rerun: rerun, Backend: &local.Backend{Root: t.TempDir()}, Models: f})
	if err != nil {
		t.Fatal(err)
	}
	sum, err := r.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return sum
}

// readLines returns every line of runs.jsonl, in order.
func readLines(t *testing.T, dir string) []results.Run {
	t.Helper()
	var runs []results.Run
	if err := results.ReadRuns(filepath.Join(dir, results.RunsFile), func(r results.Run) error {
		runs = append(runs, r)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return runs
}

// find returns the latest line of the run of model a under condition.
func find(t *testing.T, runs []results.Run, modelA, condition string) results.Run {
	t.Helper()
	var got *results.Run
	for i := range runs {
		if runs[i].ModelA == modelA && runs[i].Condition == condition {
			got = &runs[i]
		}
	}
	if got == nil {
		t.Fatalf("no %s run of %s in runs.jsonl", condition, modelA)
	}
	return *got
}

func readTranscript(t *testing.T, dir, id string) results.Transcript {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, results.TranscriptsDir, id+".json"))
	if err != nil {
		t.Fatal(err)
	}
	var tr results.Transcript
	if err := json.Unmarshal(b, &tr); err != nil {
		t.Fatal(err)
	}
	return tr
}

// entries returns a transcript's entries of one kind, for one position
// ("a", "b") or both ("").
func entries(tr results.Transcript, kind, pos string) []agent.Entry {
	var out []agent.Entry
	for _, e := range tr.Entries {
		if e.Kind == kind && (pos == "" || e.Pos == pos) {
			out = append(out, e)
		}
	}
	return out
}

func toolNames(es []agent.Entry) []string {
	var out []string
	for _, e := range es {
		out = append(out, e.Tool)
	}
	return out
}

func setKeys(t *testing.T) {
	for k, v := range testKeys {
		t.Setenv(k, v)
	}
}

type runTranscript = results.Transcript

func is(b *bool) bool { return results.Is(b) }

func isFalse(b *bool) bool { return b != nil && !*b }

// noRetry makes one attempt.
func noRetry(p *limits.Policy) { p.MaxRetries = 0 }
