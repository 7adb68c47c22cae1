package kubernetes

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strconv"
	"time"

	"github.com/killchain/killchain/sandbox"
	"github.com/killchain/killchain/sandbox/docker"
	"github.com/killchain/killchain/sandbox/sandboxbench"
)

// BenchOptions configure Bench. Zero fields take defaults.
type BenchOptions struct {
	// Runs is the number of lifecycles measured per backend and
	// concurrency (default 24).
	Runs int
	// Concurrency lists the concurrency levels (default 1 and 8).
	Concurrency []int
	// Calls is the number of tool calls timed in one running sandbox of
	// each backend (default 1000).
	Calls int
	// Options configure the Kubernetes backend; its Docker backend is the
	// one measured beside it.
	Options Options
}

// BenchBackend is one backend's figures.
type BenchBackend struct {
	RunsPerSec       map[string]float64 `json:"runs_per_sec"` // by concurrency
	ToolCallMedianMS float64            `json:"tool_call_median_ms"`
	ToolCallP99MS    float64            `json:"tool_call_p99_ms"`
}

// BenchResult is what `killchain bench sandbox --backend kubernetes --json`
// prints: each backend's figures and, per concurrency, Kubernetes' runs per
// second over Docker's.
type BenchResult struct {
	Docker     BenchBackend       `json:"docker"`
	Kubernetes BenchBackend       `json:"kubernetes"`
	Ratio      map[string]float64 `json:"ratio"`
	Runs       int                `json:"runs"`
	ToolCalls  int                `json:"tool_calls"`
	Server     string             `json:"server"`
}

// Bench measures, in one run, killchain's per-run lifecycle (open from the
// snapshot → plant → 3 tool calls → read state → close) on Docker and on
// the cluster at every concurrency, in alternating rounds so that load from
// elsewhere weighs on both alike, and the tool-call round trip inside one
// running sandbox of each.
func Bench(ctx context.Context, opts BenchOptions) (BenchResult, error) {
	if opts.Runs <= 0 {
		opts.Runs = 24
	}
	if len(opts.Concurrency) == 0 {
		opts.Concurrency = []int{1, 8}
	}
	if opts.Calls <= 0 {
		opts.Calls = 1000
	}
	opts.Options.Concurrency = max(opts.Options.Concurrency, slices.Max(opts.Concurrency))
	kb, err := New(ctx, opts.Options)
	if err != nil {
		return BenchResult{}, err
	}
	defer kb.Close(context.WithoutCancel(ctx))
	db := opts.Options.Docker
	study := fmt.Sprintf("bench-%d", time.Now().UnixNano())
	defer func() {
		cctx := context.WithoutCancel(ctx)
		docker.GC(cctx, db.Client(), docker.GCStudy(study))
		GC(cctx, kb.Client(), GCStudy(study))
	}()
	backends := []struct {
		name string
		b    sandbox.Backend
		out  *BenchBackend
	}{{"docker", db, new(BenchBackend)}, {"kubernetes", kb, new(BenchBackend)}}
	// Build and move the snapshot, make the namespace, warm both paths.
	for _, be := range backends {
		if err := sandboxbench.Lifecycle(ctx, be.b, sandboxbench.Env(study, "warm-"+be.name)); err != nil {
			return BenchResult{}, fmt.Errorf("bench %s: %w", be.name, err)
		}
		be.out.RunsPerSec = map[string]float64{}
	}
	res := BenchResult{Ratio: map[string]float64{}, Runs: opts.Runs, ToolCalls: opts.Calls, Server: kb.Host()}
	for _, c := range opts.Concurrency {
		dur := make([]time.Duration, len(backends))
		count := make([]int, len(backends))
		for round := 0; round < 2; round++ {
			n := opts.Runs / 2
			if round == 1 {
				n = opts.Runs - n
			}
			for i, be := range backends {
				d, err := sandboxbench.Timed(ctx, n, c, func(j int) error {
					return sandboxbench.Lifecycle(ctx, be.b, sandboxbench.Env(study, fmt.Sprintf("%s-%d-%d-%d", be.name, c, round, j)))
				})
				if err != nil {
					return res, fmt.Errorf("bench %s: %w", be.name, err)
				}
				dur[i], count[i] = dur[i]+d, count[i]+n
			}
		}
		key := strconv.Itoa(c)
		for i, be := range backends {
			be.out.RunsPerSec[key] = sandboxbench.Round(float64(count[i]) / dur[i].Seconds())
		}
		res.Ratio[key] = sandboxbench.Round(backends[1].out.RunsPerSec[key] / backends[0].out.RunsPerSec[key])
	}
	for _, be := range backends {
		med, p99, err := sandboxbench.RoundTrip(ctx, be.b, study, opts.Calls)
		if err != nil {
			return res, fmt.Errorf("bench %s: %w", be.name, err)
		}
		be.out.ToolCallMedianMS, be.out.ToolCallP99MS = sandboxbench.Round(med), sandboxbench.Round(p99)
	}
	res.Docker, res.Kubernetes = *backends[0].out, *backends[1].out
	return res, nil
}

// WriteText prints the result as a small table.
func (r BenchResult) WriteText(w io.Writer) {
	fmt.Fprintf(w, "cluster %s, %d runs per backend and concurrency\n", r.Server, r.Runs)
	fmt.Fprintf(w, "%-12s %16s %20s %8s\n", "concurrency", "docker runs/s", "kubernetes runs/s", "ratio")
	keys := make([]int, 0, len(r.Ratio))
	for k := range r.Ratio {
		n, _ := strconv.Atoi(k)
		keys = append(keys, n)
	}
	slices.Sort(keys)
	for _, k := range keys {
		key := strconv.Itoa(k)
		fmt.Fprintf(w, "%-12d %16.2f %20.2f %8.2f\n", k, r.Docker.RunsPerSec[key], r.Kubernetes.RunsPerSec[key], r.Ratio[key])
	}
	fmt.Fprintf(w, "tool call round trip over %d calls: docker median %.3f ms, p99 %.3f ms; kubernetes median %.3f ms, p99 %.3f ms\n",
		r.ToolCalls, r.Docker.ToolCallMedianMS, r.Docker.ToolCallP99MS, r.Kubernetes.ToolCallMedianMS, r.Kubernetes.ToolCallP99MS)
}
