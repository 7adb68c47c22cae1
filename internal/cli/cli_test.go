package cli

import (
	"bytes"
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
)

func writeStudy(t *testing.T, src string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "study.hcl")
	if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func killchain(args ...string) (int, string, string) {
	var stdout, stderr bytes.Buffer
	code := Main(context.Background(), args, &stdout, &stderr)
	return code, stdout.String(), stderr.String()
}

// downHost is an address on 127.0.0.1 where nothing listens.
func downHost(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return "http://" + addr
}

// ollamaTags serves GET /api/tags holding the given models.
func ollamaTags(t *testing.T, names ...string) string {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/api/tags" {
			http.NotFound(w, r)
			return
		}
		var ms []string
		for _, n := range names {
			ms = append(ms, `{"name":"`+n+`","model":"`+n+`","size":5225388164}`)
		}
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"models":[` + strings.Join(ms, ",") + `]}`))
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

func studyFile(sandbox, model string) string {
	return `
study "needs_models" {
  seed    = 1
  sandbox = "` + sandbox + `"
}
` + model + `
grid "g" {
  tasks      = ["memory_poison"]
  models     = ["m"]
  conditions = ["plain", "hack"]
}
`
}

func ollamaModel(host string) string {
	return `model "m" {
  provider = "ollama"
  name     = "qwen3:8b"
  host     = "` + host + `"
}`
}

const openaiModel = `model "m" {
  provider = "openai"
  name     = "gpt-4o-mini"
}`

// TestDoctorAndRunRefuseUnreachableModels: doctor exits non-zero and says
// what to do when a study's model cannot be reached; run refuses the same
// study before it creates a sandbox or writes anything.
func TestDoctorAndRunRefuseUnreachableModels(t *testing.T) {
	tests := []struct {
		name   string
		key    string // OPENAI_API_KEY
		model  func(t *testing.T) string
		ok     bool
		advice []string
	}{
		{name: "ollama host down", model: func(t *testing.T) string { return ollamaModel(downHost(t)) },
			advice: []string{"does not answer", "ollama serve", "ollama pull qwen3:8b"}},
		{name: "ollama model not pulled", model: func(t *testing.T) string { return ollamaModel(ollamaTags(t, "llama3.1:latest")) },
			advice: []string{"does not hold model qwen3:8b", "ollama pull qwen3:8b"}},
		{name: "key unset", model: func(*testing.T) string { return openaiModel },
			advice: []string{"OPENAI_API_KEY is not set", "export OPENAI_API_KEY"}},
		{name: "ollama host up with the model", model: func(t *testing.T) string { return ollamaModel(ollamaTags(t, "qwen3:8b")) }, ok: true},
		{name: "key set", key: "sk-doctor-present-0000", model: func(*testing.T) string { return openaiModel }, ok: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv("OPENAI_API_KEY", tt.key)
			file := writeStudy(t, studyFile("local", tt.model(t)))
			code, stdout, stderr := killchain("doctor", file)
			if (code == 0) != tt.ok {
				t.Fatalf("doctor exit %d, want ok=%v\n%s%s", code, tt.ok, stdout, stderr)
			}
			for _, a := range tt.advice {
				if !strings.Contains(stdout, a) {
					t.Errorf("doctor output lacks %q:\n%s", a, stdout)
				}
			}
			if tt.ok {
				if !strings.Contains(stdout, "model m") || strings.Contains(stdout, "MISSING\t") {
					t.Errorf("doctor output:\n%s", stdout)
				}
				if tt.key != "" && strings.Contains(stdout+stderr, tt.key) {
					t.Error("doctor printed the key")
				}
				return
			}
			if !strings.Contains(stderr, "cannot be reached") {
				t.Errorf("doctor stderr %q does not say the study cannot run", stderr)
			}

			// A docker study too: the models are checked before any backend.
			for _, sb := range []string{"local", "docker"} {
				file := writeStudy(t, studyFile(sb, tt.model(t)))
				out := filepath.Join(t.TempDir(), "out")
				code, stdout, stderr := killchain("run", "-q", "--output", out, file)
				if code == 0 {
					t.Fatalf("%s: run started a study whose model cannot be reached", sb)
				}
				if !strings.Contains(stderr, "cannot start") || !strings.Contains(stderr, tt.advice[len(tt.advice)-1]) {
					t.Errorf("%s: run said %q%q, want the doctor's advice", sb, stdout, stderr)
				}
				if _, err := os.Stat(out); !os.IsNotExist(err) {
					t.Errorf("%s: run refused but created %s (%v)", sb, out, err)
				}
			}
		})
	}
}

// TestDoctorWithoutStudy says plainly that no hosted provider is reachable
// when no key is set.
func TestDoctorWithoutStudy(t *testing.T) {
	for _, k := range []string{"OPENAI_API_KEY", "ANTHROPIC_API_KEY", "DEEPSEEK_API_KEY"} {
		t.Setenv(k, "")
	}
	code, stdout, stderr := killchain("doctor")
	if code != 0 {
		t.Fatalf("doctor exit %d\n%s%s", code, stdout, stderr)
	}
	for _, want := range []string{"no hosted provider is reachable", "export OPENAI_API_KEY", "export ANTHROPIC_API_KEY", "export DEEPSEEK_API_KEY"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("doctor output lacks %q:\n%s", want, stdout)
		}
	}
}

// TestMaxRetriesZeroMeansNoRetry: a model block's max_retries = 0 makes
// one attempt; before the fix the driver read 0 as its default of four
// retries.
func TestMaxRetriesZeroMeansNoRetry(t *testing.T) {
	tests := []struct {
		name  string
		attr  string
		posts int64
	}{
		{"zero", "max_retries = 0", 1},
		{"one", "max_retries = 1", 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var posts atomic.Int64
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "application/json")
				if r.Method == http.MethodGet { // doctor's GET /models
					w.Write([]byte(`{"object":"list","data":[{"id":"q","object":"model"}]}`))
					return
				}
				posts.Add(1)
				w.Header().Set("Retry-After", "0")
				w.WriteHeader(http.StatusInternalServerError)
				w.Write([]byte(`{"error":{"message":"boom","type":"server_error","param":null,"code":null}}`))
			}))
			defer srv.Close()
			file := writeStudy(t, `
study "retries" {
  seed     = 1
  sandbox  = "local"
  attempts = 1 # the driver's retries only, not the study's
}
model "m" {
  provider = "openai_compatible"
  name     = "q"
  base_url = "`+srv.URL+`/v1"
  `+tt.attr+`
}
grid "g" {
  tasks      = ["memory_poison"]
  models     = ["m"]
  conditions = ["plain"]
}
`)
			code, stdout, stderr := killchain("run", "-q", "--output", filepath.Join(t.TempDir(), "out"), file)
			if code != 0 || !strings.Contains(stdout, "1 ran, 1 errors") {
				t.Fatalf("run exit %d\n%s%s", code, stdout, stderr)
			}
			if got := posts.Load(); got != tt.posts {
				t.Errorf("server saw %d calls, want %d", got, tt.posts)
			}
		})
	}
}
