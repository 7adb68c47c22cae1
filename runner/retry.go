package runner

import (
	"context"
	"math/rand/v2"
	"time"

	"github.com/killchain/killchain/internal/canary"
	"github.com/killchain/killchain/internal/cost"
	"github.com/killchain/killchain/internal/results"
	"github.com/killchain/killchain/internal/study"
)

// maxBackoff caps the wait before one retry.
const maxBackoff = time.Minute

// backoff is the wait before the n-th retry (n from 1): base·2^(n-1), capped
// at maxBackoff, jittered down to between half and all of it so that runs
// that failed together do not come back together.
func backoff(base time.Duration, n int, jitter func() float64) time.Duration {
	if base <= 0 {
		return 0
	}
	d := base
	for i := 1; i < n && d < maxBackoff; i++ {
		d *= 2
	}
	d = min(d, maxBackoff)
	return d/2 + time.Duration(jitter()*float64(d/2))
}

// attempt executes a planned run up to the study's attempts times: a try
// that fails with a retryable error is discarded (its events and transcript
// with it) and the run is tried again in a fresh sandbox with a fresh canary
// after a backoff. The returned outcome is the last try's, carrying every
// earlier try's error in AttemptErrors; an error that remains after the last
// try stays the run's error. retried is called before each retry. A
// cancelled ctx ends the tries at once; the caller then records nothing.
func (r *Runner) attempt(ctx context.Context, pr study.Run, canaries *canary.Set, retried func()) (outcome, error) {
	tries := max(1, r.study.Attempts)
	var failed []results.AttemptError
	spent, throttledBefore := 0.0, 0 // what earlier tries cost and met
	log := r.log.With("run", pr.RunID)
	for n := 1; ; n++ {
		tok := ""
		if t, ok := r.study.Tasks.Get(pr.Task); pr.Attacked || ok && t.CarriesCanary(pr.Attacked) {
			var err error
			if tok, err = canaries.New(); err != nil {
				return outcome{}, err
			}
		}
		out := r.execute(ctx, pr, tok)
		if r.opts.Scrub != nil && out.run.Error != "" {
			out.run.Error = r.opts.Scrub(out.run.Error)
			out.transcript.Error = out.run.Error
		}
		out.run.Attempts = n
		out.run.AttemptErrors = failed
		tryCost := out.run.Cost
		out.run.Cost = cost.Round(spent + tryCost)
		out.run.RateLimited += throttledBefore
		if out.run.Error == "" || ctx.Err() != nil || n >= tries || !out.run.ErrorKind.Retryable() || out.fatal {
			// A fatal answer (a refused key, a missing model) is never
			// tried again: every try would meet it.
			return out, nil
		}
		spent += tryCost
		throttledBefore = out.run.RateLimited
		failed = append(failed, results.AttemptError{Kind: out.run.ErrorKind, Error: out.run.Error, Reason: out.run.ErrorReason,
			Canary: tok, Started: out.run.Started, DurationMS: out.run.DurationMS, Cost: cost.Round(tryCost)})
		wait := backoff(r.study.RetryBackoff, n, rand.Float64)
		log.Warn("run attempt failed, retrying", "attempt", n, "attempts", tries, "kind", out.run.ErrorKind, "error", out.run.Error, "backoff", wait)
		if retried != nil {
			retried()
		}
		select {
		case <-time.After(wait):
		case <-ctx.Done():
			// Interrupted between tries: the last try's outcome is an error
			// the caller leaves for --resume.
			return out, nil
		}
	}
}
