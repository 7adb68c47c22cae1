// Package sandboxbench measures sandbox backends the same way: a run's
// lifecycle (open from the snapshot → plant → 3 tool calls → read state →
// close) at a given concurrency, the same from a warm pool, and the round
// trip of a tool call inside a running sandbox. The Docker and Kubernetes benchmarks share it.
package sandboxbench

import (
	"context"
	"encoding/json"
	"fmt"
	"runtime"
	"slices"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/killchain/killchain/sandbox"
)

// Task is the task name benchmark runs use (its snapshot is built once).
const Task = "bench"

// Env is a benchmark run's environment.
func Env(study, run string) sandbox.Env {
	return sandbox.Env{
		Study: study, Run: run, Task: Task,
		Files:  map[string][]byte{"web/" + sandbox.PageFile("https://bench.example/page"): []byte("benchmark page SECRET-00000000")},
		Memory: []sandbox.Record{sandbox.TextRecord("seed", "seeded note", "")},
	}
}

// Lifecycle is one run's lifecycle on b.
func Lifecycle(ctx context.Context, b sandbox.Backend, env sandbox.Env) error {
	s, err := b.Open(ctx, env)
	if err != nil {
		return err
	}
	defer s.Close(ctx)
	for _, c := range []struct{ tool, args string }{
		{"get_webpage", `{"url":"https://bench.example/page"}`},
		{"write_memory", `{"key":"summary","value":"a summary"}`},
		{"send_report", `{"to":"lead@example.org","subject":"s","body":"b"}`},
	} {
		if _, err := s.Call(ctx, "a", c.tool, json.RawMessage(c.args)); err != nil {
			return err
		}
	}
	if _, err := s.State(ctx); err != nil {
		return err
	}
	return s.Close(ctx)
}

// Timed runs n lifecycles, c at a time, and returns the wall time.
func Timed(ctx context.Context, n, c int, run func(i int) error) (time.Duration, error) {
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(c)
	start := time.Now()
	for i := 0; i < n; i++ {
		if gctx.Err() != nil {
			break
		}
		g.Go(func() error { return run(i) })
	}
	if err := g.Wait(); err != nil {
		return 0, err
	}
	return time.Since(start), nil
}

// Warm is a backend with a warm pool.
type Warm interface {
	sandbox.Backend
	// WarmReady counts the sandboxes standing ready.
	WarmReady() int
	// WarmSettle waits until no sandbox of the pool is in creation.
	WarmSettle(ctx context.Context) error
}

// Pooled times n lifecycles on b, c at a time, from a full warm pool until
// the pool is full again: every run taken from the pool is replaced within
// the time, so each is charged the create, start and removal of one
// sandbox, as an unpooled lifecycle is. The pool is filled first, outside
// the time (one lifecycle makes the benchmark's task known to it).
func Pooled(ctx context.Context, b Warm, n, c int, study, prefix string) (time.Duration, error) {
	if b.WarmReady() == 0 {
		if err := Lifecycle(ctx, b, Env(study, prefix+"-fill")); err != nil {
			return 0, err
		}
	}
	if err := b.WarmSettle(ctx); err != nil {
		return 0, err
	}
	start := time.Now()
	if _, err := Timed(ctx, n, c, func(i int) error {
		return Lifecycle(ctx, b, Env(study, fmt.Sprintf("%s-%d", prefix, i)))
	}); err != nil {
		return 0, err
	}
	if err := b.WarmSettle(ctx); err != nil {
		return 0, err
	}
	return time.Since(start), nil
}

// RoundTrip times calls tool calls in one running sandbox of b and returns
// the median and 99th percentile in milliseconds.
func RoundTrip(ctx context.Context, b sandbox.Backend, study string, calls int) (median, p99 float64, err error) {
	s, err := b.Open(ctx, Env(study, "roundtrip"))
	if err != nil {
		return 0, 0, err
	}
	defer s.Close(ctx)
	args := json.RawMessage(`{"key":"seed"}`)
	d := make([]float64, 0, calls)
	for i := 0; i < calls; i++ {
		t := time.Now()
		if _, err := s.Call(ctx, "a", "read_memory", args); err != nil {
			return 0, 0, err
		}
		d = append(d, float64(time.Since(t).Microseconds())/1000)
	}
	slices.Sort(d)
	return d[len(d)/2], d[min(len(d)-1, len(d)*99/100)], nil
}

// Levels returns the concurrency levels to measure: those given, or by
// default 1, the machine's cores (at most 8) and 8, each once, in order.
// Below the cores a warm pool has CPU to spare; on a small machine 8
// saturates the container runtime.
func Levels(given []int) []int {
	if len(given) == 0 {
		given = []int{1, min(runtime.NumCPU(), 8), 8}
	}
	levels := slices.Clone(given)
	slices.Sort(levels)
	return slices.Compact(levels)
}

// RoundRuns is the number of lifecycles of round (0 or 1) of a
// measurement of runs lifecycles in two rounds at concurrency c: half of
// them each, and at least c, so that the level is reached.
func RoundRuns(runs, round, c int) int {
	n := runs / 2
	if round == 1 {
		n = runs - n
	}
	return max(n, c)
}

// Round keeps three decimals.
func Round(f float64) float64 { return float64(int64(f*1000+0.5)) / 1000 }
