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
