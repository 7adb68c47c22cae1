package limits

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

func TestLimiterAIMD(t *testing.T) {
	l := NewLimiter(8, 3)
	ctx := context.Background()
	take := func() Token {
		t.Helper()
		tok, err := l.Acquire(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return tok
	}
	// Three calls in flight all get 429: the limit halves once, not three times.
	a, b, c := take(), take(), take()
	l.Release(a, Throttled)
	l.Release(b, Throttled)
	l.Release(c, Throttled)
	if got := l.Limit(); got != 4 {
		t.Fatalf("limit after one burst of 429s = %d, want 4", got)
	}
	// A call admitted after the decrease may decrease again.
	l.Release(take(), Throttled)
	if got := l.Limit(); got != 2 {
		t.Fatalf("limit after a fresh 429 = %d, want 2", got)
	}
	for range 2 {
		l.Release(take(), Throttled)
	}
	if got := l.Limit(); got != 1 {
		t.Fatalf("limit floor = %d, want 1", got)
	}
	// Grows by one after each run of three successes, failures do not count.
	for i := range 6 {
		l.Release(take(), Success)
		if i == 3 {
			l.Release(take(), Failed)
		}
	}
	if got := l.Limit(); got != 3 {
		t.Fatalf("limit after six successes = %d, want 3", got)
	}
	for range 30 {
		l.Release(take(), Success)
	}
	if got := l.Limit(); got != 8 {
		t.Fatalf("limit grew past or short of max: %d", got)
	}
}

func TestLimiterBlocksAtLimit(t *testing.T) {
	l := NewLimiter(1, 0)
	tok, err := l.Acquire(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	if _, err := l.Acquire(ctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("second acquire = %v, want to block until the deadline", err)
	}
	got := make(chan error, 1)
	go func() {
		_, err := l.Acquire(context.Background())
		got <- err
	}()
	time.Sleep(5 * time.Millisecond)
	l.Release(tok, Success)
	select {
	case err := <-got:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(time.Second):
		t.Fatal("waiter not woken by release")
	}
	if l.InUse() != 1 {
		t.Errorf("in use = %d, want 1", l.InUse())
	}
}

func TestSharedLimiter(t *testing.T) {
	a := Shared("test|shared.example:443", 6)
	b := Shared("test|shared.example:443", 4)
	if a != b {
		t.Fatal("same endpoint got two limiters")
	}
	if a.Limit() != 4 {
		t.Errorf("limit = %d, want the smaller max 4", a.Limit())
	}
	if Shared("test|other.example:443", 6) == a {
		t.Error("different endpoints share a limiter")
	}
}

func TestRetryAfter(t *testing.T) {
	now := time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)
	tests := []struct {
		name  string
		h     map[string]string
		want  time.Duration
		found bool
	}{
		{"seconds", map[string]string{"Retry-After": "7"}, 7 * time.Second, true},
		{"fraction", map[string]string{"Retry-After": "0.5"}, 500 * time.Millisecond, true},
		{"http date", map[string]string{"Retry-After": "Sun, 29 Nov 2026 12:00:30 GMT"}, 30 * time.Second, true},
		{"past date", map[string]string{"Retry-After": "Sun, 29 Nov 2026 11:00:00 GMT"}, 0, true},
		{"ms wins", map[string]string{"Retry-After-Ms": "250", "Retry-After": "9"}, 250 * time.Millisecond, true},
		{"garbage", map[string]string{"Retry-After": "soon"}, 0, false},
		{"absent", nil, 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := http.Header{}
			for k, v := range tt.h {
				h.Set(k, v)
			}
			got, ok := RetryAfter(h, now)
			if got != tt.want || ok != tt.found {
				t.Errorf("RetryAfter = %v, %v; want %v, %v", got, ok, tt.want, tt.found)
			}
		})
	}
}

func TestBackoff(t *testing.T) {
	tests := []struct {
		name    string
		attempt int
		lo, hi  time.Duration
	}{
		{"first", 1, 50 * time.Millisecond, 100 * time.Millisecond},
		{"third", 3, 200 * time.Millisecond, 400 * time.Millisecond},
		{"capped", 10, 500 * time.Millisecond, time.Second},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for range 50 {
				d := Backoff(100*time.Millisecond, time.Second, tt.attempt)
				if d < tt.lo || d > tt.hi {
					t.Fatalf("Backoff = %v, want within [%v, %v]", d, tt.lo, tt.hi)
				}
			}
		})
	}
}

func TestCallerStatuses(t *testing.T) {
	tests := []struct {
		name     string
		statuses []int
		attempts int
		ok       bool
	}{
		{"429 then ok", []int{429, 200}, 2, true},
		{"503 twice then ok", []int{503, 503, 200}, 3, true},
		{"401 fails at once", []int{401}, 1, false},
		{"500 until out of retries", []int{500, 500, 500, 500}, 3, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n := 0
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.WriteHeader(tt.statuses[min(n, len(tt.statuses)-1)])
				n++
			}))
			defer srv.Close()
			hc := &http.Client{Transport: Transport(nil)}
			var slept []time.Duration
			c := &Caller{Model: "m", Limiter: NewLimiter(2, 0), Policy: Policy{MaxRetries: 2, BaseDelay: time.Millisecond,
				Sleep: func(_ context.Context, d time.Duration) error { slept = append(slept, d); return nil }}}
			st, err := c.Do(context.Background(), func(ctx context.Context) error {
				req, _ := http.NewRequestWithContext(ctx, http.MethodPost, srv.URL, nil)
				resp, err := hc.Do(req)
				if err != nil {
					return err
				}
				resp.Body.Close()
				if resp.StatusCode != 200 {
					return errors.New(resp.Status)
				}
				return nil
			})
			if (err == nil) != tt.ok || st.Attempts != tt.attempts {
				t.Fatalf("err = %v, attempts = %d; want ok=%v attempts=%d", err, st.Attempts, tt.ok, tt.attempts)
			}
			if err != nil && !errors.Is(err, ErrProvider) {
				t.Errorf("err %v does not wrap ErrProvider", err)
			}
			if len(slept) != tt.attempts-1 && tt.ok {
				t.Errorf("slept %d times, want %d", len(slept), tt.attempts-1)
			}
			if c.Limiter.InUse() != 0 {
				t.Error("limiter slot leaked")
			}
		})
	}
}

func TestCallerStopsOnCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	c := &Caller{Policy: Policy{MaxRetries: 5}}
	_, err := c.Do(ctx, func(context.Context) error { cancel(); return errors.New("boom") })
	if !errors.Is(err, context.Canceled) || errors.Is(err, ErrProvider) {
		t.Errorf("err = %v, want the cancellation, not a provider error", err)
	}
}

func TestReason(t *testing.T) {
	tests := []struct{ name, body, want string }{
		{"openai", `{"error":{"message":"Incorrect API key provided: sk-xx.","type":"invalid_request_error"}}`, "Incorrect API key provided: sk-xx."},
		{"anthropic", `{"type":"error","error":{"type":"not_found_error","message":"model: claude-x"}}`, "model: claude-x"},
		{"ollama", `{"error":"model \"qwen9\" not found, try pulling it first"}`, `model "qwen9" not found, try pulling it first`},
		{"plain text", "404 page not found\nmore", "404 page not found"},
		{"empty", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Reason([]byte(tt.body)); got != tt.want {
				t.Errorf("Reason = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestProviderErrorFatal(t *testing.T) {
	for status, fatal := range map[int]bool{401: true, 403: true, 404: true, 400: false, 429: false, 500: false, 0: false} {
		e := &ProviderError{Model: "m", Attempts: 1, Status: status, Msg: "x", KeyEnv: "K", Served: "id"}
		if e.Fatal() != fatal || (e.Hint() != "") != fatal {
			t.Errorf("status %d: fatal %v hint %q", status, e.Fatal(), e.Hint())
		}
		if strings.HasPrefix(e.Error(), "provider error") {
			t.Errorf("status %d: %q repeats the kind", status, e.Error())
		}
	}
}
