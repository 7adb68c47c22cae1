package limits

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"
)

// exchange records what the Transport saw during one attempt.
type exchange struct {
	mu            sync.Mutex
	status        int
	retryAfter    time.Duration
	hasRetryAfter bool
	timedOut      bool
	// reason is the server's own words in an error answer (its
	// error.message, or the start of its body), which SDK errors may drop.
	reason string
}

type exchangeKey struct{}

func withExchange(ctx context.Context, ex *exchange) context.Context {
	return context.WithValue(ctx, exchangeKey{}, ex)
}

// retryable says whether the attempt failed in a way worth repeating: 408,
// 409, 429 and 5xx statuses, timeouts, broken connections and bodies that
// did not parse. Other 4xx statuses (bad request, bad key, unknown model)
// fail at once.
func (ex *exchange) retryable() bool {
	ex.mu.Lock()
	defer ex.mu.Unlock()
	switch s := ex.status; {
	case s == 0, s < 300:
		return true // no status (network, timeout) or a 2xx whose body broke
	case s == http.StatusRequestTimeout, s == http.StatusConflict, s == http.StatusTooManyRequests:
		return true
	case s >= 500:
		return true
	}
	return false
}

// Transport wraps base (nil means the process's pooled transport, see
// Pooled) so that a Caller learns each response's status and Retry-After
// even when the SDK hides them. Give it to the SDK through its HTTP-client
// option.
func Transport(base http.RoundTripper) http.RoundTripper {
	if base == nil {
		base = Pooled()
	}
	return &transport{base: base}
}

// MaxIdlePerHost is how many idle connections the pooled transport keeps
// to one host: as many as a study keeps calls in flight to it, so that
// hundreds of runs waiting on one server reuse their connections instead
// of opening one per call (http.DefaultTransport keeps 2 and closes the
// rest, leaving a TIME_WAIT socket and a new handshake behind each call).
const MaxIdlePerHost = 1024

var (
	pooledOnce sync.Once
	pooled     *http.Transport
)

// Pooled is the transport every driver shares: http.DefaultTransport's
// settings (proxy from the environment, dial and TLS timeouts, HTTP/2)
// with MaxIdlePerHost idle connections per host and no limit on the total.
func Pooled() *http.Transport {
	pooledOnce.Do(func() {
		t := http.DefaultTransport.(*http.Transport).Clone()
		t.MaxIdleConns = 0
		t.MaxIdleConnsPerHost = MaxIdlePerHost
		pooled = t
	})
	return pooled
}

type transport struct{ base http.RoundTripper }

func (t *transport) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := t.base.RoundTrip(req)
	ex, _ := req.Context().Value(exchangeKey{}).(*exchange)
	if ex == nil || resp == nil {
		return resp, err
	}
	reason := ""
	if resp.StatusCode >= 400 && resp.Body != nil {
		// Read the answer's start and hand the SDK the same bytes.
		head, rerr := io.ReadAll(io.LimitReader(resp.Body, maxReason))
		resp.Body = struct {
			io.Reader
			io.Closer
		}{io.MultiReader(bytes.NewReader(head), resp.Body), resp.Body}
		if rerr == nil {
			reason = Reason(head)
		}
	}
	ex.mu.Lock()
	ex.status = resp.StatusCode
	ex.retryAfter, ex.hasRetryAfter = RetryAfter(resp.Header, time.Now())
	ex.reason = reason
	ex.mu.Unlock()
	return resp, err
}

// maxReason bounds how much of an error answer is read for its reason.
const maxReason = 8 << 10

// Reason is the server's own words in an error answer's body: the
// error.message (OpenAI, Anthropic, DeepSeek, vLLM), error (Ollama) or
// message field of a JSON body, else the body's first line; at most 300
// characters.
func Reason(body []byte) string {
	var doc struct {
		Error   json.RawMessage `json:"error"`
		Message string          `json:"message"`
	}
	msg := ""
	if json.Unmarshal(body, &doc) == nil {
		var nested struct {
			Message string `json:"message"`
		}
		var plain string
		switch {
		case json.Unmarshal(doc.Error, &nested) == nil && nested.Message != "":
			msg = nested.Message
		case json.Unmarshal(doc.Error, &plain) == nil && plain != "":
			msg = plain
		default:
			msg = doc.Message
		}
	} else {
		msg, _, _ = strings.Cut(strings.TrimSpace(string(body)), "\n")
	}
	msg = strings.TrimSpace(msg)
	if r := []rune(msg); len(r) > 300 {
		msg = string(r[:300]) + "…"
	}
	return msg
}

// RetryAfter reads how long the server asked us to wait: retry-after-ms
// (sent by OpenAI), or Retry-After as seconds or as an HTTP date.
func RetryAfter(h http.Header, now time.Time) (time.Duration, bool) {
	if v := strings.TrimSpace(h.Get("Retry-After-Ms")); v != "" {
		if ms, err := strconv.ParseFloat(v, 64); err == nil && ms >= 0 {
			return time.Duration(ms * float64(time.Millisecond)), true
		}
	}
	v := strings.TrimSpace(h.Get("Retry-After"))
	if v == "" {
		return 0, false
	}
	if s, err := strconv.ParseFloat(v, 64); err == nil {
		if s < 0 {
			return 0, false
		}
		return time.Duration(s * float64(time.Second)), true
	}
	if t, err := http.ParseTime(v); err == nil {
		d := t.Sub(now)
		if d < 0 {
			d = 0
		}
		return d, true
	}
	return 0, false
}
