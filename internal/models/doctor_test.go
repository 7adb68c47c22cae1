package models

import (
	"context"
	"errors"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/killchain/killchain/internal/models/internal/fake"
)

func TestDoctor(t *testing.T) {
	t.Setenv("OPENAI_API_KEY", "")
	t.Setenv("ANTHROPIC_API_KEY", "sk-ant-DOCTOR-secret-99")
	t.Setenv("GPU_BOX_KEY", "box-DOCTOR-secret-42")
	srv := fake.New(t)
	srv.Get("/api/tags", fake.Step{Body: fake.Fixture("ollama_tags.json")})
	srv.Get("/v1/models", fake.Step{Body: fake.Fixture("openai_models.json")})
	claude := fake.New(t)
	claude.Get("/v1/models", fake.Step{Body: `{"data":[{"type":"model","id":"claude-sonnet-4-5","display_name":"Claude"}],"has_more":false}`})
	refused := fake.New(t)
	refused.Get("/v1/models", fake.Step{Status: 401, Body: `{"error":{"message":"Incorrect API key provided","type":"invalid_request_error"}}`})
	t.Setenv("UNSET_BOX_KEY", "")
	dead := httptest.NewServer(nil)
	deadURL := dead.URL
	dead.Close()

	tests := []struct {
		cfg     Config
		ok      bool
		problem string
		advice  string
	}{
		{Config{Name: "compliant", Provider: Scripted}, true, "", ""},
		{Config{Name: "qwen", Provider: Ollama, Model: "qwen3:8b", Host: srv.URL}, true, "", ""},
		{Config{Name: "llama", Provider: Ollama, Model: "llama3.1", Host: srv.URL}, true, "", ""},
		{Config{Name: "gemma", Provider: Ollama, Model: "gemma3:4b", Host: srv.URL}, false, "does not hold model gemma3:4b", "ollama pull gemma3:4b"},
		{Config{Name: "far", Provider: Ollama, Model: "qwen3:8b", Host: deadURL}, false, "does not answer", "ollama serve"},
		{Config{Name: "gpt", Provider: OpenAI, Model: "gpt-4o-mini"}, false, "OPENAI_API_KEY is not set", "export OPENAI_API_KEY"},
		{Config{Name: "claude", Provider: Anthropic, Model: "claude-sonnet-4-5", BaseURL: claude.URL}, true, "", ""},
		{Config{Name: "claude-typo", Provider: Anthropic, Model: "claude-sonet-4-5", BaseURL: claude.URL}, false, "does not list model claude-sonet-4-5", "lists claude-sonnet-4-5"},
		{Config{Name: "box-unset", Provider: OpenAICompatible, Model: "qwen3-8b", BaseURL: srv.URL + "/v1", APIKeyEnv: "UNSET_BOX_KEY"}, false, "UNSET_BOX_KEY, which is not set", "export UNSET_BOX_KEY"},
		{Config{Name: "box-typo", Provider: OpenAICompatible, Model: "qwen3-8", BaseURL: srv.URL + "/v1", APIKeyEnv: "GPU_BOX_KEY"}, false, "does not list model qwen3-8", "lists qwen3-8b"},
		{Config{Name: "box-refused", Provider: OpenAICompatible, Model: "qwen3-8b", BaseURL: refused.URL + "/v1", APIKeyEnv: "GPU_BOX_KEY"}, false, "GPU_BOX_KEY was refused (Incorrect API key provided)", "GPU_BOX_KEY"},
		{Config{Name: "ds", Provider: DeepSeek, Model: "deepseek-chat", APIKeyEnv: "MY_DS_KEY"}, false, "MY_DS_KEY is not set", "export MY_DS_KEY"},
		{Config{Name: "box", Provider: OpenAICompatible, Model: "qwen3-8b", BaseURL: srv.URL + "/v1", APIKeyEnv: "GPU_BOX_KEY"}, true, "", ""},
		{Config{Name: "box404", Provider: OpenAICompatible, Model: "qwen3-8b", BaseURL: srv.URL + "/nope"}, false, "404", "base_url"},
		{Config{Name: "gone", Provider: OpenAICompatible, Model: "qwen3-8b", BaseURL: deadURL + "/v1"}, false, "does not answer", "start the server"},
		{Config{Name: "nobase", Provider: OpenAICompatible, Model: "qwen3-8b"}, false, "base_url is not set", "base_url"},
	}
	var cfgs []Config
	for _, tt := range tests {
		cfgs = append(cfgs, tt.cfg)
	}
	got := Doctor(context.Background(), cfgs)
	if len(got) != len(tests) {
		t.Fatalf("%d findings for %d models", len(got), len(tests))
	}
	for i, tt := range tests {
		t.Run(tt.cfg.Name, func(t *testing.T) {
			f := got[i]
			if f.Model != tt.cfg.Name || f.OK != tt.ok {
				t.Fatalf("finding = %+v, want ok=%v", f, tt.ok)
			}
			if !strings.Contains(f.Problem, tt.problem) || !strings.Contains(f.Advice, tt.advice) {
				t.Errorf("finding = %+v, want problem %q and advice %q", f, tt.problem, tt.advice)
			}
			for _, s := range []string{f.Problem, f.Advice} {
				if strings.Contains(s, "DOCTOR-secret") {
					t.Errorf("finding prints a key: %q", s)
				}
			}
		})
	}
	// One /api/tags probe per host, however many models use it.
	if n := srv.GetCount("/api/tags"); n != 1 {
		t.Errorf("/api/tags probed %d times, want once", n)
	}
	if n := len(srv.Requests()); n != 0 {
		t.Errorf("doctor sent %d POSTs", n)
	}

	err := Check(context.Background(), cfgs)
	if !errors.Is(err, ErrUnreachable) {
		t.Fatalf("Check = %v, want ErrUnreachable", err)
	}
	for _, name := range []string{"gemma", "gpt", "gone"} {
		if !strings.Contains(err.Error(), "model "+name+":") {
			t.Errorf("Check error does not name %s: %v", name, err)
		}
	}
	if strings.Contains(err.Error(), "model qwen:") || strings.Contains(err.Error(), "DOCTOR-secret") {
		t.Errorf("Check error names a healthy model or a key: %v", err)
	}
	if err := Check(context.Background(), cfgs[:3]); err != nil {
		t.Errorf("Check on reachable models = %v", err)
	}
}
