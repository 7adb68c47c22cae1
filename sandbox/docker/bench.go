package docker

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"slices"
	"strconv"
	"time"

	"github.com/moby/moby/api/types/container"
	"github.com/moby/moby/client"

	"github.com/killchain/killchain/sandbox/sandboxbench"
	"github.com/killchain/killchain/sandbox/warm"
)

// BenchOptions configure Bench. Zero fields take defaults.
type BenchOptions struct {
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
	// Options configure the backend under test.
	Options Options
}

// BenchLevel is the throughput at one concurrency.
type BenchLevel struct {
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

// BenchResult is what `killchain bench sandbox --json` prints.
type BenchResult struct {
	Concurrency      map[string]BenchLevel `json:"concurrency"`
	ToolCallMedianMS float64               `json:"tool_call_median_ms"`
	ToolCallP99MS    float64               `json:"tool_call_p99_ms"`
	ToolCalls        int                   `json:"tool_calls"`
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
func Bench(ctx context.Context, opts BenchOptions) (BenchResult, error) {
	if opts.Runs <= 0 {
		opts.Runs = 24
	}
	opts.Concurrency = sandboxbench.Levels(opts.Concurrency)
	if opts.Calls <= 0 {
		opts.Calls = 1000
	}
	b, err := New(ctx, opts.Options)
	if err != nil {
		return BenchResult{}, err
	}
	defer b.Close(context.WithoutCancel(ctx))
	study := fmt.Sprintf("bench-%d", time.Now().UnixNano())
	defer GC(context.WithoutCancel(ctx), b.cli, GCStudy(study))

	// Build the snapshot and warm the daemon's caches.
	if err := sandboxbench.Lifecycle(ctx, b, sandboxbench.Env(study, "warm")); err != nil {
		return BenchResult{}, err
	}
	snap, err := b.snapshot(ctx, sandboxbench.Task, "toolbox")
	if err != nil {
		return BenchResult{}, err
	}
	if err := rawRun(ctx, b, snap.ref, study, "warm-raw"); err != nil {
		return BenchResult{}, err
	}
	res := BenchResult{Concurrency: map[string]BenchLevel{}}
	for _, c := range opts.Concurrency {
		// Alternate the two kinds in rounds so that load from elsewhere on
		// the machine weighs on both alike.
		size := cmp.Or(opts.WarmPool, c)
		popts := opts.Options
		popts.Client, popts.Limiter, popts.WarmPool = b.cli, b.limit, size
		pb, err := New(ctx, popts)
		if err != nil {
			return res, err
		}
		defer pb.Close(context.WithoutCancel(ctx))
		var rawDur, kcDur, poolDur time.Duration
		var rawN, kcN, poolN int
		for round := 0; round < 2; round++ {
			n := sandboxbench.RoundRuns(opts.Runs, round, c)
			d, err := sandboxbench.Timed(ctx, n, c, func(i int) error {
				return rawRun(ctx, b, snap.ref, study, fmt.Sprintf("raw-%d-%d-%d", c, round, i))
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
		res.Concurrency[strconv.Itoa(c)] = BenchLevel{
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

// rawRun is one `docker run --rm` lifecycle of image with the same hardened
// host configuration: the toolbox prints its version and exits.
func rawRun(ctx context.Context, b *Backend, image, study, run string) error {
	cfg := &container.Config{Image: image, Entrypoint: []string{warm.ToolboxPath}, Cmd: []string{"version"}}
	containerConfig(cfg, map[string]string{LabelStudy: study, LabelRun: run}, nil)
	cfg.OpenStdin, cfg.StdinOnce, cfg.AttachStdin = false, false, false
	created, err := b.cli.ContainerCreate(ctx, client.ContainerCreateOptions{Config: cfg, HostConfig: hostConfig(b.opts)})
	if err != nil {
		return err
	}
	defer b.remove(ctx, created.ID)
	wait := b.cli.ContainerWait(ctx, created.ID, client.ContainerWaitOptions{Condition: container.WaitConditionNextExit})
	if _, err := b.cli.ContainerStart(ctx, created.ID, client.ContainerStartOptions{}); err != nil {
		return err
	}
	select {
	case r := <-wait.Result:
		if r.StatusCode != 0 {
			return fmt.Errorf("raw run exited with %d", r.StatusCode)
		}
	case err := <-wait.Error:
		return err
	}
	return b.remove(ctx, created.ID)
}

// WriteText prints the result as a small table.
func (r BenchResult) WriteText(w io.Writer) {
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
