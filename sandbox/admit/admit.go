// Package admit bounds CPU-heavy sandbox work host-wide. Speech synthesis at
// set-up, transcription and PDF extraction each keep a CPU busy for seconds;
// with many runs in flight on few cores they would all slow down together
// until their calls ran past the sandbox's call deadline. A Limiter admits at
// most N heavy calls at once (N defaults to the number of CPUs) and starts a
// call's deadline when it is admitted, so the deadline bounds the call's own
// running time and the time it queued is bounded only by the run's context.
//
// The sandbox backends call Run for every request they send; which work is
// heavy is decided by the caller (tools.IsHeavy for tool calls, speech clips
// for set-up).
package admit

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sync/atomic"
	"time"

	"github.com/hashicorp/go-hclog"
	"golang.org/x/sync/semaphore"
)

// ErrDeadline is the cause of a call's context when the call ran longer than
// its deadline after it was admitted.
var ErrDeadline = errors.New("call ran past its deadline")

// Limiter admits heavy work up to a fixed number of slots. It is safe for
// concurrent use; the zero value is not usable, use New.
type Limiter struct {
	slots int64
	sem   *semaphore.Weighted
	log   hclog.Logger

	running atomic.Int64 // heavy calls admitted and not yet finished
	queued  atomic.Int64 // heavy calls waiting for a slot
}

// New returns a limiter with n slots; n <= 0 means runtime.NumCPU(). A nil
// logger logs nothing; queue waits are logged at debug level under "admit".
func New(n int, log hclog.Logger) *Limiter {
	if n <= 0 {
		n = runtime.NumCPU()
	}
	if log == nil {
		log = hclog.NewNullLogger()
	}
	return &Limiter{slots: int64(n), sem: semaphore.NewWeighted(int64(n)), log: log.Named("admit")}
}

// Slots is how many heavy calls may run at once.
func (l *Limiter) Slots() int { return int(l.slots) }

// Running is how many heavy calls run now.
func (l *Limiter) Running() int { return int(l.running.Load()) }

// Queued is how many heavy calls wait for a slot now.
func (l *Limiter) Queued() int { return int(l.queued.Load()) }

// Call describes one piece of sandbox work for Run.
type Call struct {
	// What names the work in logs and errors, e.g. "call transcribe_audio".
	What string
	// Heavy work waits for a slot; light work runs at once.
	Heavy bool
	// Timeout bounds the work's own running time, counted from admission;
	// 0 means no deadline beyond ctx's.
	Timeout time.Duration
}

// Run runs fn once c is admitted: at once for light work, when a slot is free
// for heavy work. While it queues, only ctx bounds the wait: a cancelled ctx
// returns ctx's error promptly and fn never runs. fn's context carries c's
// deadline from the moment of admission; when that deadline passes,
// context.Cause of fn's context is ErrDeadline (ctx's own cancellation
// leaves its own cause), so fn can tell a slow sandbox from a cancelled run.
func (l *Limiter) Run(ctx context.Context, c Call, fn func(ctx context.Context) error) error {
	if c.Heavy {
		release, err := l.admit(ctx, c.What)
		if err != nil {
			return err
		}
		defer release()
	}
	if c.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeoutCause(ctx, c.Timeout, fmt.Errorf("%w (%s after %s)", ErrDeadline, c.What, c.Timeout))
		defer cancel()
	}
	return fn(ctx)
}

// admit takes a slot, waiting for one while ctx lives.
func (l *Limiter) admit(ctx context.Context, what string) (func(), error) {
	if !l.sem.TryAcquire(1) {
		start := time.Now()
		l.log.Debug("heavy work queued", "what", what, "running", l.running.Load(), "queued", l.queued.Add(1), "slots", l.slots)
		err := l.sem.Acquire(ctx, 1)
		l.queued.Add(-1)
		waited := time.Since(start)
		if err != nil {
			l.log.Debug("heavy work gave up waiting", "what", what, "waited", waited, "error", err)
			return nil, fmt.Errorf("wait for a heavy-work slot (%s): %w", what, err)
		}
		l.log.Debug("heavy work admitted", "what", what, "waited", waited, "slots", l.slots)
	}
	l.running.Add(1)
	return func() {
		l.running.Add(-1)
		l.sem.Release(1)
	}, nil
}
