package limits

import (
	"context"
	"sync"
)

// Outcome is how a call under a Limiter ended.
type Outcome int

// Outcomes.
const (
	Success   Outcome = iota // the call worked: counts toward growing the limit
	Throttled                // the provider said 429: the limit halves
	Failed                   // any other failure: the limit stays
)

// Limiter is an adaptive concurrency limit (additive increase,
// multiplicative decrease), as Inspect AI's adaptive connections: it halves
// on a 429 and grows back by one after GrowAfter successes in a row. A nil
// *Limiter admits everything.
type Limiter struct {
	mu        sync.Mutex
	limit     int
	min, max  int
	growAfter int
	inUse     int
	successes int
	epoch     int // bumped on each decrease
	wake      chan struct{}
}

// Token is held by one admitted call.
type Token struct{ epoch int }

// NewLimiter starts at max concurrent calls; the limit moves within
// [1, max]. growAfter ≤ 0 means max (one step per window of calls).
func NewLimiter(max, growAfter int) *Limiter {
	if max < 1 {
		max = 1
	}
	if growAfter <= 0 {
		growAfter = max
	}
	return &Limiter{limit: max, min: 1, max: max, growAfter: growAfter, wake: make(chan struct{})}
}

// Acquire waits for a free slot or for ctx to end.
func (l *Limiter) Acquire(ctx context.Context) (Token, error) {
	if l == nil {
		return Token{}, ctx.Err()
	}
	for {
		l.mu.Lock()
		if l.inUse < l.limit {
			l.inUse++
			t := Token{epoch: l.epoch}
			l.mu.Unlock()
			return t, nil
		}
		wake := l.wake
		l.mu.Unlock()
		select {
		case <-wake:
		case <-ctx.Done():
			return Token{}, ctx.Err()
		}
	}
}

// Release frees the slot and adapts the limit. Only calls admitted since the
// last decrease can decrease it again, so a burst of 429s from calls that
// were already in flight halves the limit once, not once per call.
func (l *Limiter) Release(t Token, o Outcome) {
	if l == nil {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.inUse--
	switch o {
	case Throttled:
		l.successes = 0
		if t.epoch == l.epoch {
			l.limit = max(l.min, l.limit/2)
			l.epoch++
		}
	case Success:
		l.successes++
		if l.successes >= l.growAfter && l.limit < l.max {
			l.limit++
			l.successes = 0
		}
	}
	close(l.wake)
	l.wake = make(chan struct{})
}

// Limit is the current concurrency limit.
func (l *Limiter) Limit() int {
	if l == nil {
		return 0
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.limit
}

// InUse is the number of calls holding a slot.
func (l *Limiter) InUse() int {
	if l == nil {
		return 0
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.inUse
}

var (
	sharedMu sync.Mutex
	shared   = map[string]*Limiter{}
)

// Shared returns the process-wide limiter for key (provider and host), so
// every model that talks to the same endpoint shares one limit. The first
// caller's max sets it; later callers with a smaller max lower it.
func Shared(key string, max int) *Limiter {
	sharedMu.Lock()
	defer sharedMu.Unlock()
	l, ok := shared[key]
	if !ok {
		l = NewLimiter(max, 0)
		shared[key] = l
		return l
	}
	l.mu.Lock()
	if max >= 1 && max < l.max {
		l.max = max
		l.limit = min(l.limit, max)
	}
	l.mu.Unlock()
	return l
}
