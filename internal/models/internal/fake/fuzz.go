package fake

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/killchain/killchain/internal/agent"
	"github.com/killchain/killchain/internal/models/limits"
)

// FuzzCaller is the caller a fuzzed driver uses: no retries, a short
// timeout, so that one body is one attempt.
func FuzzCaller() *limits.Caller {
	return &limits.Caller{Model: "fuzz", Policy: limits.Policy{Timeout: 5 * time.Second}}
}

// FuzzReplies fuzzes a driver's decoding of its provider's reply: a
// loopback server answers each call with the fuzzed body (status 200, the
// content type given), the driver built by open from the server's URL
// decodes it. No body may panic or hang the driver, and a body it cannot
// use is an error that says it is the provider's and names the model.
// The seeds are the named fixtures, as recorded from each provider.
func FuzzReplies(f *testing.F, contentType string, open func(url string) (agent.Model, error), seeds ...string) {
	for _, s := range seeds {
		f.Add([]byte(Fixture(s)))
	}
	var mu sync.Mutex
	var body []byte
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		b := body
		mu.Unlock()
		w.Header().Set("Content-Type", contentType)
		_, _ = w.Write(b)
	}))
	f.Cleanup(srv.Close)
	m, err := open(srv.URL)
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		mu.Lock()
		body = b
		mu.Unlock()
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		_, err := m.Generate(ctx, FirstRequest())
		if ctx.Err() != nil {
			t.Fatalf("the driver hung on a reply of %d bytes", len(b))
		}
		if err != nil && (!errors.Is(err, limits.ErrProvider) || !strings.Contains(err.Error(), "fuzz")) {
			t.Fatalf("error %q does not say it is the provider's reply for model fuzz", err)
		}
	})
}
