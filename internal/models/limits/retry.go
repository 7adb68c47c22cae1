// Package limits holds the fault handling every live model driver shares:
// retries with exponential backoff and jitter, Retry-After, a per-call
// timeout, an adaptive (AIMD) concurrency limit per provider and host, and
// the redaction of credentials from anything that leaves a driver.
package limits

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"strings"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/killchain/killchain/internal/secrets"
)

// ErrProvider marks a model call that failed after its last retry, or that
// the provider refused outright. The runner records such a run as a
// provider error, never as an outcome.
var ErrProvider = errors.New("provider error")

// ProviderError is the error a Caller returns once it gives up. Its message
// has every known secret removed, and it keeps no reference to the SDK error
// (whose request dump could carry credentials).
type ProviderError struct {
	Model    string
	Attempts int
	Status   int // last HTTP status, 0 when none was received
	Msg      string
	// Throttled counts the attempts the provider answered with 429.
	Throttled int
	// KeyEnv and Served name the key's environment variable and the
	// provider's model id, for the advice of a fatal error.
	KeyEnv string
	Served string
}

// Error names the model, the attempts and the provider's own words, and
// for a fatal answer what to check. It does not begin with "provider
// error": the run's error kind says that already (agent.RunError).
func (e *ProviderError) Error() string {
	msg := fmt.Sprintf("model %s: %d attempt(s): %s", e.Model, e.Attempts, e.Msg)
	if hint := e.Hint(); hint != "" {
		msg += " (" + hint + ")"
	}
	return msg
}

// Fatal reports whether the answer dooms every later call of the study
// too: 401 (the key is missing or wrong), 403 (the key may not use the
// model) or 404 (the server has no such model or endpoint). Such a call
// is never retried, and the runner stops the study at once.
func (e *ProviderError) Fatal() bool {
	switch e.Status {
	case http.StatusUnauthorized, http.StatusForbidden, http.StatusNotFound:
		return true
	}
	return false
}

// RateLimited is Throttled, for callers that see the error alone.
func (e *ProviderError) RateLimited() int { return e.Throttled }

// Hint says what to check after a fatal answer, naming the key's variable
// or the model id; "" for other errors.
func (e *ProviderError) Hint() string {
	key := "the API key"
	if e.KeyEnv != "" {
		key = "the API key in " + e.KeyEnv
	}
	served := e.Served
	if served == "" {
		served = e.Model
	}
	switch e.Status {
	case http.StatusUnauthorized:
		return "authentication refused: check " + key
	case http.StatusForbidden:
		return fmt.Sprintf("permission denied: %s may not use model %s", key, served)
	case http.StatusNotFound:
		return fmt.Sprintf("not found: the server has no model %s (check the model block's name and base_url)", served)
	}
	return ""
}

// Unwrap lets errors.Is(err, ErrProvider) hold.
func (e *ProviderError) Unwrap() error { return ErrProvider }

// Policy sets how a Caller retries.
type Policy struct {
	MaxRetries    int           // retries after the first attempt
	BaseDelay     time.Duration // first backoff before jitter
	MaxDelay      time.Duration // cap on a computed backoff
	MaxRetryAfter time.Duration // cap on a server's Retry-After
	Timeout       time.Duration // per attempt; 0 means none
	// Sleep waits between attempts; nil means a real, cancellable sleep.
	Sleep func(ctx context.Context, d time.Duration) error
}

// DefaultPolicy is what live drivers use unless the study says otherwise.
func DefaultPolicy() Policy {
	return Policy{
		MaxRetries:    4,
		BaseDelay:     time.Second,
		MaxDelay:      30 * time.Second,
		MaxRetryAfter: 2 * time.Minute,
		Timeout:       3 * time.Minute,
	}
}

// Caller runs one model call with retries, the shared concurrency limit and
// the per-call timeout.
type Caller struct {
	Model   string // block name, for errors and logs
	KeyEnv  string // the key's environment variable, named by fatal errors
	Served  string // the provider's model id, named by fatal errors
	Policy  Policy
	Limiter *Limiter // nil means no limit
	Logger  hclog.Logger
	Secrets *secrets.Set // values scrubbed from errors and logs
}

// Stats describes what one Do call took.
type Stats struct {
	Attempts int
	// Throttled counts the attempts the provider answered with 429.
	Throttled int
}

// Do calls fn until it succeeds, fails for good, or the retries run out.
// fn receives a context that carries the per-attempt timeout and the
// exchange record the Transport fills in.
func (c *Caller) Do(ctx context.Context, fn func(ctx context.Context) error) (Stats, error) {
	var st Stats
	log := c.Logger
	if log == nil {
		log = hclog.NewNullLogger()
	}
	for {
		if err := ctx.Err(); err != nil {
			return st, err
		}
		st.Attempts++
		ex, err := c.attempt(ctx, fn)
		if err == nil {
			return st, nil
		}
		if ctx.Err() != nil {
			return st, ctx.Err()
		}
		if ex.status == http.StatusTooManyRequests {
			st.Throttled++
		}
		text := err.Error()
		if ex.reason != "" && !strings.Contains(text, ex.reason) {
			text += ": " + ex.reason
		}
		msg := c.Secrets.Scrub(text)
		if ex.timedOut {
			msg = fmt.Sprintf("no reply within %s: %s", c.Policy.Timeout, msg)
		}
		if !ex.retryable() || st.Attempts > c.Policy.MaxRetries {
			log.Error("model call failed", "model", c.Model, "attempts", st.Attempts, "status", ex.status, "error", msg)
			return st, &ProviderError{Model: c.Model, Attempts: st.Attempts, Status: ex.status, Msg: msg,
				Throttled: st.Throttled, KeyEnv: c.KeyEnv, Served: c.Served}
		}
		d := c.delay(st.Attempts, ex)
		log.Warn("retrying model call", "model", c.Model, "attempt", st.Attempts, "status", ex.status, "delay", d, "error", msg)
		if err := c.sleep(ctx, d); err != nil {
			return st, err
		}
	}
}

// attempt runs fn once under the limiter and the timeout.
func (c *Caller) attempt(ctx context.Context, fn func(ctx context.Context) error) (*exchange, error) {
	ex := &exchange{}
	tok, err := c.Limiter.Acquire(ctx)
	if err != nil {
		return ex, err
	}
	actx, cancel := ctx, context.CancelFunc(func() {})
	if c.Policy.Timeout > 0 {
		actx, cancel = context.WithTimeout(ctx, c.Policy.Timeout)
	}
	err = fn(withExchange(actx, ex))
	ex.timedOut = err != nil && errors.Is(actx.Err(), context.DeadlineExceeded) && ctx.Err() == nil
	cancel()
	switch {
	case err == nil:
		c.Limiter.Release(tok, Success)
	case ex.status == http.StatusTooManyRequests:
		c.Limiter.Release(tok, Throttled)
	default:
		c.Limiter.Release(tok, Failed)
	}
	return ex, err
}

// delay is the wait before the next attempt: the server's Retry-After when
// it sent one, otherwise exponential backoff with jitter.
func (c *Caller) delay(attempt int, ex *exchange) time.Duration {
	if ex.hasRetryAfter {
		d := ex.retryAfter
		if c.Policy.MaxRetryAfter > 0 && d > c.Policy.MaxRetryAfter {
			d = c.Policy.MaxRetryAfter
		}
		return d
	}
	return Backoff(c.Policy.BaseDelay, c.Policy.MaxDelay, attempt)
}

// Backoff is the capped exponential backoff for the given attempt (1 for the
// first retry) with "equal jitter": a random point in [d/2, d].
func Backoff(base, maxDelay time.Duration, attempt int) time.Duration {
	if base <= 0 {
		return 0
	}
	d := base
	for i := 1; i < attempt && (maxDelay <= 0 || d < maxDelay); i++ {
		d *= 2
	}
	if maxDelay > 0 && d > maxDelay {
		d = maxDelay
	}
	half := d / 2
	return half + rand.N(half+1)
}

func (c *Caller) sleep(ctx context.Context, d time.Duration) error {
	if c.Policy.Sleep != nil {
		return c.Policy.Sleep(ctx, d)
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
