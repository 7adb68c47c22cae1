package models

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/killchain/killchain/internal/agent"
	"github.com/killchain/killchain/internal/models/internal/fake"
	"github.com/killchain/killchain/internal/tools"
)

// TestScriptNeverSent: the ground truth the runner hands every role of a
// suite run (agent.Request.Script, for the scripted reference agents)
// never reaches a provider. Each live driver's request, as it leaves on
// the wire, holds none of it.
func TestScriptNeverSent(t *testing.T) {
	const mark, canary = "SCRIPTMARK-7Q", "SECRET-5C819700"
	for _, c := range e2eCases() {
		t.Run(c.label, func(t *testing.T) {
			p := fake.NewProvider(t, c.kind, fake.Options{})
			target, _ := url.Parse(p.URL)
			var mu sync.Mutex
			var bodies [][]byte
			proxy := httputil.NewSingleHostReverseProxy(target)
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				body, _ := io.ReadAll(r.Body)
				mu.Lock()
				bodies = append(bodies, body)
				mu.Unlock()
				r.Body = io.NopCloser(bytes.NewReader(body))
				proxy.ServeHTTP(w, r)
			}))
			t.Cleanup(srv.Close)
			for _, env := range []string{"OPENAI_API_KEY", "ANTHROPIC_API_KEY", "DEEPSEEK_API_KEY", "GPU_BOX_KEY"} {
				t.Setenv(env, "test-key")
			}
			cfg := Config{Name: c.label, Provider: c.provider, Model: c.model, MaxRetries: -1}
			switch c.kind {
			case fake.Ollama:
				cfg.Host = srv.URL
			case fake.OpenAIChat:
				cfg.BaseURL, cfg.API = srv.URL+"/v1", "chat"
			case fake.Responses:
				cfg.BaseURL, cfg.API = srv.URL+"/v1", "responses"
			case fake.Compatible:
				cfg.BaseURL, cfg.APIKeyEnv = srv.URL+"/v1", "GPU_BOX_KEY"
			default:
				cfg.BaseURL = srv.URL
			}
			m, err := New(cfg, nil)
			if err != nil {
				t.Fatal(err)
			}
			spec, _ := tools.Lookup(tools.SendReport)
			req := agent.Request{System: "You help.", Messages: []agent.Message{{Role: agent.RoleUser, Content: "Pay the bill."}},
				Tools: []tools.Spec{spec}, Script: &agent.Script{
					Task:      []agent.ScriptCall{{Tool: tools.SendReport, Args: []byte(`{"to":"` + mark + `@x.example"}`)}},
					Injection: []agent.ScriptCall{{Tool: "send_money", Args: []byte(`{"subject":"` + mark + ` ` + canary + `"}`)}},
					FreeText:  map[string][]string{mark: {mark}}, Canary: canary,
				}}
			if _, err := m.Generate(context.Background(), req); err != nil {
				t.Fatalf("generate: %v", err)
			}
			mu.Lock()
			defer mu.Unlock()
			if len(bodies) == 0 {
				t.Fatal("no request reached the provider")
			}
			for _, b := range bodies {
				if bytes.Contains(b, []byte(mark)) || bytes.Contains(b, []byte(canary)) {
					t.Errorf("a request carried the script: %s", b)
				}
				if !strings.Contains(string(b), "Pay the bill.") && len(b) > 0 && bytes.HasPrefix(bytes.TrimSpace(b), []byte("{")) {
					t.Errorf("a request without the conversation: %s", b)
				}
			}
		})
	}
}
