// Package dockerbench is `killchain bench sandbox`: it measures the Docker
// backend's per-run lifecycle against the raw lifecycle of the same
// container (rawrun.go), with and without a warm pool, and the tool-call
// round trip, with the harness of package sandboxbench.
package dockerbench

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"slices"
	"strconv"
	"time"

	"github.com/killchain/killchain/sandbox/admit"
	"github.com/killchain/killchain/sandbox/docker"
	"github.com/killchain/killchain/sandbox/sandboxbench"
)

// Options configure Bench. Zero fields take defaults.
type Options struct {
	// Runs is the number of lifecycles measured per kind and concurrency
	// (default 24).
	Runs int
	// Concurrency lists the concurrency levels (default:
	// sandboxbench.Levels).
	Concurrency []int
	// Calls is the number of tool calls timed in one running sandbox
	// (default 1000).
	Calls int
	// WarmPool is the warm pool's size in the pooled measurement; 0: the
	// concurrency measured (what a study of that concurrency gets).
	WarmPool int
	// Backend configures the backend under test.
	Backend docker.Options
}

// Level is the throughput at one concurrency.
type Level struct {
	RawRunsPerSec       float64 `json:"raw_runs_per_sec"`
	KillchainRunsPerSec float64 `json:"killchain_runs_per_sec"`
	Ratio               float64 `json:"ratio"`
	// Pooled is killchain's lifecycle with a warm pool of WarmPool
	// containers, timed until the pool is full again; PooledRatio is its
	// runs per second over the raw lifecycle's.
	PooledRunsPerSec float64 `json:"pooled_runs_per_sec"`
	PooledRatio      float64 `json:"pooled_ratio"`
	WarmPool         int     `json:"warm_pool"`
	Runs             int     `json:"runs"`
}

// Result is what `killchain bench sandbox --json` prints.
type Result struct {
	Concurrency      map[string]Level `json:"concurrency"`
	ToolCallMedianMS float64          `json:"tool_call_median_ms"`
	ToolCallP99MS    float64          `json:"tool_call_p99_ms"`
	ToolCalls        int              `json:"tool_calls"`
}

// Bench measures, on this machine: the raw lifecycle of the snapshot image
// (create → start → wait → remove, as `docker run --rm` does, with the same
// hardened host configuration) against killchain's per-run lifecycle (open
// from the snapshot → plant → 3 tool calls → read state → remove), each at
// every concurrency, and the tool-call round trip inside a running sandbox.
//
// The pooled lifecycle is the same on a backend with a warm pool: a round
// starts with the pool full and its time runs until the pool is full again,
// so each pooled run is charged the create, start and remove of one
// container, as in the two others; what the pool saves is waiting for them.
func Bench(ctx context.Context, opts Options) (Result, error) {
	if opts.Runs <= 0 {
		opts.Runs = 24
	}
	opts.Concurrency = sandboxbench.Levels(opts.Concurrency)
	if opts.Calls <= 0 {
		opts.Calls = 1000
	}
	// One admission limiter for the backend and its pooled twins, as one
	// study's backend has.
	if opts.Backend.Limiter == nil {
		opts.Backend.Limiter = admit.New(opts.Backend.HeavyConcurrency, opts.Backend.Logger)
	}
	b, err := docker.New(ctx, opts.Backend)
	if err != nil {
		return Result{}, err
	}
	defer b.Close(context.WithoutCancel(ctx))
	study := fmt.Sprintf("bench-%d", time.Now().UnixNano())
	defer docker.GC(context.WithoutCancel(ctx), b.Client(), docker.GCStudy(study))

	// Build the snapshot and warm the daemon's caches.
	if err := sandboxbench.Lifecycle(ctx, b, sandboxbench.Env(study, "warm")); err != nil {
		return Result{}, err
	}
	snap, err := b.Prepare(ctx, sandboxbench.Env(study, "raw"))
	if err != nil {
		return Result{}, err
	}
	rl := rawLifecycle{b: b, image: snap.Image, study: study, cleanup: cmp.Or(opts.Backend.CleanupTimeout, docker.DefaultOptions().CleanupTimeout)}
	if err := rl.run(ctx, "warm-raw"); err != nil {
		return Result{}, err
	}
	res := Result{Concurrency: map[string]Level{}}
	for _, c := range opts.Concurrency {
		// Alternate the two kinds in rounds so that load from elsewhere on
		// the machine weighs on both alike.
		size := cmp.Or(opts.WarmPool, c)
		popts := opts.Backend
		popts.Client, popts.WarmPool = b.Client(), size
		pb, err := docker.New(ctx, popts)
		if err != nil {
			return res, err
		}
		defer pb.Close(context.WithoutCancel(ctx))
		var rawDur, kcDur, poolDur time.Duration
		var rawN, kcN, poolN int
		for round := 0; round < 2; round++ {
			n := sandboxbench.RoundRuns(opts.Runs, round, c)
			d, err := sandboxbench.Timed(ctx, n, c, func(i int) error {
				return rl.run(ctx, fmt.Sprintf("raw-%d-%d-%d", c, round, i))
			})
			if err != nil {
				return res, fmt.Errorf("bench raw: %w", err)
			}
			rawDur, rawN = rawDur+d, rawN+n
			d, err = sandboxbench.Timed(ctx, n, c, func(i int) error {
				return sandboxbench.Lifecycle(ctx, b, sandboxbench.Env(study, fmt.Sprintf("kc-%d-%d-%d", c, round, i)))
			})
			if err != nil {
				return res, fmt.Errorf("bench killchain: %w", err)
			}
			kcDur, kcN = kcDur+d, kcN+n
			d, err = sandboxbench.Pooled(ctx, pb, n, c, study, fmt.Sprintf("pool-%d-%d", c, round))
			if err != nil {
				return res, fmt.Errorf("bench pooled: %w", err)
			}
			poolDur, poolN = poolDur+d, poolN+n
		}
		raw, kc, pooled := float64(rawN)/rawDur.Seconds(), float64(kcN)/kcDur.Seconds(), float64(poolN)/poolDur.Seconds()
		res.Concurrency[strconv.Itoa(c)] = Level{
			RawRunsPerSec: sandboxbench.Round(raw), KillchainRunsPerSec: sandboxbench.Round(kc), Ratio: sandboxbench.Round(kc / raw),
			PooledRunsPerSec: sandboxbench.Round(pooled), PooledRatio: sandboxbench.Round(pooled / raw), WarmPool: size, Runs: rawN,
		}
		if err := pb.Close(context.WithoutCancel(ctx)); err != nil {
			return res, err
		}
	}
	med, p99, err := sandboxbench.RoundTrip(ctx, b, study, opts.Calls)
	if err != nil {
		return res, err
	}
	res.ToolCallMedianMS, res.ToolCallP99MS, res.ToolCalls = sandboxbench.Round(med), sandboxbench.Round(p99), opts.Calls
	return res, nil
}

// WriteText prints the result as a small table.
func (r Result) WriteText(w io.Writer) {
	fmt.Fprintf(w, "%-12s %14s %18s %8s %15s %8s %10s\n", "concurrency", "raw runs/s", "killchain runs/s", "ratio", "pooled runs/s", "ratio", "warm pool")
	keys := make([]int, 0, len(r.Concurrency))
	for k := range r.Concurrency {
		n, _ := strconv.Atoi(k)
		keys = append(keys, n)
	}
	slices.Sort(keys)
	for _, k := range keys {
		l := r.Concurrency[strconv.Itoa(k)]
		fmt.Fprintf(w, "%-12d %14.2f %18.2f %8.2f %15.2f %8.2f %10d\n", k, l.RawRunsPerSec, l.KillchainRunsPerSec, l.Ratio, l.PooledRunsPerSec, l.PooledRatio, l.WarmPool)
	}
	fmt.Fprintf(w, "tool call round trip over %d calls: median %.3f ms, p99 %.3f ms\n", r.ToolCalls, r.ToolCallMedianMS, r.ToolCallP99MS)
}
