package runner

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sync"
	"time"

	"github.com/killchain/killchain/internal/canary"
	"github.com/killchain/killchain/internal/results"
	"github.com/killchain/killchain/internal/study"
)

// recorder is where a study's runs are recorded: its writer, canaries,
// money, summary and progress, shared by the plan's runs and the adaptive
// cells' rounds.
type recorder struct {
	w        *results.Writer
	canaries *canary.Set
	money    *spend
	mu       *sync.Mutex // guards sum
	sum      *Summary
	prog     *Progress // nil for none
	// writers admits the runs' records being written at once: runs
	// that end together (a wave of runs that got their last replies in
	// the same instant) would otherwise encode and create their files in
	// the same burst of CPU as the next runs' first steps.
	writers chan struct{}
}

// recordWriters is how many runs' records are written at once: two per
// CPU, enough for their fsyncs to overlap. bench runner at concurrency 256
// measured 0.94–0.95 of ideal with 2 or 4 against 0.89–0.93 with no bound,
// in alternating passes (docs/benchmarks.md).
func recordWriters() int { return 2 * runtime.GOMAXPROCS(0) }

// count changes the summary under its lock.
func (rc *recorder) count(f func(*Summary)) {
	rc.mu.Lock()
	f(rc.sum)
	rc.mu.Unlock()
}

// runReserved runs pr, whose estimated cost est is reserved, in fresh
// sandboxes until a try is kept or the tries are spent, and records it;
// adaptive marks an adaptive round's run (nil for none). The reservation
// is replaced by the run's cost, or released when nothing was recorded.
// It reports false when the study was interrupted before the run was
// recorded (it is left for --resume). A provider answer that dooms every
// later run is a *FatalError once the run is recorded. executed, when set,
// is called once the run is done with its sandbox and models, before it is
// written: the caller frees its slot there, so that the next run starts
// while this one's record is being synced to disk.
func (r *Runner) runReserved(ctx context.Context, rc *recorder, pr study.Run, est float64, adaptive *results.Adaptive, executed func()) (results.Run, bool, error) {
	recorded := false
	defer func() {
		if !recorded {
			rc.money.budget.Release(est)
		}
	}()
	if ctx.Err() != nil {
		return results.Run{}, false, nil
	}
	began := time.Now()
	out, err := r.attempt(ctx, pr, rc.canaries, func() {
		rc.count(func(s *Summary) { s.Retried++ })
		if rc.prog != nil {
			rc.prog.Retried()
		}
	})
	if executed != nil && !out.fatal {
		// A run whose provider doomed the study keeps its slot until
		// the study stops: no run starts behind it with the same key.
		executed()
	}
	if err != nil {
		return results.Run{}, false, err
	}
	if ctx.Err() != nil && out.run.Error != "" {
		// Interrupted, not failed: leave it for --resume.
		return out.run, false, nil
	}
	out.run.Adaptive = adaptive
	events := out.events
	if out.run.Error != "" {
		// An errored run is no outcome: its transcript keeps what
		// happened, but its tracker events are not written, so that
		// events.jsonl holds each run's events once, from its last try.
		// Tries retried within the study left nothing but their error.
		events = nil
	}
	writing := time.Now()
	rc.writers <- struct{}{}
	err = results.Write(rc.w, out.run, events, out.transcript)
	<-rc.writers
	if err != nil {
		return out.run, false, fmt.Errorf("record %s: %w", pr.RunID, err)
	}
	if r.opts.Timed != nil {
		r.opts.Timed(time.Since(began), time.Since(writing))
	}
	recorded = true
	rc.money.settle(pr, est, out.run)
	if out.run.Error != "" {
		r.log.Warn("run failed", "run", pr.RunID, "attempts", out.run.Attempts, "kind", out.run.ErrorKind, "error", out.run.Error)
	}
	rc.count(func(s *Summary) {
		s.Ran++
		s.RateLimited += out.run.RateLimited
		if out.run.Error != "" {
			s.Errors++
		}
		if adaptive != nil && adaptive.Round > 0 {
			s.Rounds++
		}
	})
	if rc.prog != nil {
		rc.prog.Cost(out.run.Cost, out.run.RateLimited)
		rc.prog.Done(out.run.Error != "")
	}
	if out.fatal {
		// A refused key or a missing model dooms every later run: stop
		// the study now (runs in flight are left for --resume).
		return out.run, true, &FatalError{Run: pr.RunID, Err: errors.New(out.run.Error)}
	}
	return out.run, true, nil
}
