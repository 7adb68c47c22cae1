package cli

import (
	"bytes"
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/killchain/killchain/internal/results"
	"github.com/killchain/killchain/internal/study"
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

const smokeFile = "../../hcl/smoke.hcl"

// recorded reads a study folder's runs.jsonl by run id, failing on a run
// recorded twice.
func recorded(t *testing.T, dir string) map[string]results.Run {
	t.Helper()
	out := map[string]results.Run{}
	err := results.ReadRuns(filepath.Join(dir, results.RunsFile), func(r results.Run) error {
		if _, dup := out[r.RunID]; dup {
			t.Errorf("run %s recorded twice", r.RunID)
		}
		out[r.RunID] = r
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// planOf loads and plans a study file.
func planOf(t *testing.T, file string) (*study.Study, []study.Run) {
	t.Helper()
	s, diags := study.Load(file)
	if diags.HasErrors() {
		t.Fatalf("%s: %v", file, diags)
	}
	plan, err := s.Plan()
	if err != nil {
		t.Fatal(err)
	}
	return s, plan
}

// withoutAudio writes hcl/smoke.hcl less audio_inject (which the local
// backend cannot run): the same study, name and seed, so every other run
// keeps its id.
func withoutAudio(t *testing.T) string {
	t.Helper()
	src, err := os.ReadFile(smokeFile)
	if err != nil {
		t.Fatal(err)
	}
	text := regexp.MustCompile(`(?s)grid "(defenses_audio|narrate_audio)" \{.*?\n\}\n`).ReplaceAllString(string(src), "")
	text = strings.ReplaceAll(text, `"audio_inject", `, "")
	if strings.Contains(text, `"audio_inject"`) {
		t.Fatal("smoke.hcl changed: cannot strip audio_inject from it")
	}
	return writeStudy(t, text)
}

// finishedStudy runs gateStudy's scripted study (no thresholds) on the
// local sandbox and returns its folder.
func finishedStudy(t *testing.T) string {
	t.Helper()
	out := filepath.Join(t.TempDir(), "out")
	if code, stdout, stderr := killchain("run", "-q", "--output", out, writeStudy(t, gateStudy(""))); code != exitOK {
		t.Fatalf("run exit %d\n%s%s", code, stdout, stderr)
	}
	return out
}

// modelList serves GET /v1/models (OpenAI's, DeepSeek's, Anthropic's and
// vLLM's list of models) holding ids, and returns its URL.
func modelList(t *testing.T, ids ...string) string {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v1/models" {
			http.NotFound(w, r)
			return
		}
		var data []string
		for _, id := range ids {
			data = append(data, `{"id":"`+id+`","object":"model"}`)
		}
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"object":"list","data":[` + strings.Join(data, ",") + `]}`))
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// openaiAt is openaiModel served at base (a modelList URL).
func openaiAt(base string) string {
	return strings.Replace(openaiModel, "}", "  base_url = \""+base+"/v1\"\n}", 1)
}
