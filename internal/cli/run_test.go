package cli

import (
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
)

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
			if code != 0 || !strings.Contains(stdout, "1 ran, 1 error →") {
				t.Fatalf("run exit %d\n%s%s", code, stdout, stderr)
			}
			if got := posts.Load(); got != tt.posts {
				t.Errorf("server saw %d calls, want %d", got, tt.posts)
			}
		})
	}
}
