// Package kubebench is `killchain bench sandbox --backend kubernetes`: it
// measures the Kubernetes backend's per-run lifecycle beside Docker's and
// against the raw pod lifecycle through client-go (rawpod.go), with and
// without a warm pool, and each backend's tool-call round trip, with the
// harness of package sandboxbench.
package kubebench

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"slices"
	"strconv"
	"time"

	"github.com/killchain/killchain/sandbox"
	"github.com/killchain/killchain/sandbox/admit"
	"github.com/killchain/killchain/sandbox/docker"
	"github.com/killchain/killchain/sandbox/kubernetes"
	"github.com/killchain/killchain/sandbox/sandboxbench"
	"github.com/killchain/killchain/sandbox/warm"
)

// Options configure Bench. Zero fields take defaults.
type Options struct {
	// Runs is the number of lifecycles measured per kind and concurrency
	// (default 24).
	Runs int
	// Concurrency lists the concurrency levels (default:
	// sandboxbench.Levels).
	Concurrency []int
	// Calls is the number of tool calls timed in one running sandbox of
	// each backend (default 1000).
	Calls int
	// WarmPool is the warm pool's size in the pooled measurement; 0: the
	// concurrency measured.
	WarmPool int
	// Docker is the Docker backend measured beside the cluster; it also
	// builds the snapshot images (Backend.Docker is set to it).
	Docker *docker.Backend
	// Backend configures the Kubernetes backend.
	Backend kubernetes.Options
}

// Figures are one backend's figures.
type Figures struct {
	RunsPerSec       map[string]float64 `json:"runs_per_sec"` // by concurrency
	ToolCallMedianMS float64            `json:"tool_call_median_ms"`
	ToolCallP99MS    float64            `json:"tool_call_p99_ms"`
}

// Result is what `killchain bench sandbox --backend kubernetes --json`
// prints, by concurrency: killchain's lifecycle on Docker and on the
// cluster, the raw pod lifecycle, and killchain's pods from a warm pool,
// in runs per second; Ratio is Kubernetes over Docker, RawRatio killchain's
// pods over raw pods and PooledRatio pooled pods over raw pods.
type Result struct {
	Docker      Figures            `json:"docker"`
	Kubernetes  Figures            `json:"kubernetes"`
	RawPods     map[string]float64 `json:"raw_pods_runs_per_sec"`
	Pooled      map[string]float64 `json:"pooled_runs_per_sec"`
	Ratio       map[string]float64 `json:"ratio"`
	RawRatio    map[string]float64 `json:"raw_ratio"`
	PooledRatio map[string]float64 `json:"pooled_ratio"`
	WarmPool    map[string]int     `json:"warm_pool"`
	Runs        int                `json:"runs"`
	ToolCalls   int                `json:"tool_calls"`
	Server      string             `json:"server"`
}

// Bench measures, in one run, at every concurrency: killchain's per-run
// lifecycle (open from the snapshot → plant → 3 tool calls → read state →
// close) on Docker and on the cluster, the raw pod lifecycle (rawpod.go), and
// killchain's lifecycle on the cluster with a warm pool, timed from a full
// pool until it is full again (so each pooled run is charged one pod's
// create, start and delete); the kinds alternate in rounds so that load
// from elsewhere weighs on all alike. It also times the tool-call round
// trip inside one running sandbox of each backend.
func Bench(ctx context.Context, opts Options) (Result, error) {
	if opts.Runs <= 0 {
		opts.Runs = 24
	}
	opts.Concurrency = sandboxbench.Levels(opts.Concurrency)
	if opts.Calls <= 0 {
		opts.Calls = 1000
	}
	opts.Backend.Concurrency = max(opts.Backend.Concurrency, slices.Max(opts.Concurrency))
	db := opts.Docker
	opts.Backend.Docker = db
	// One admission limiter for the backend and its pooled twins, as one
	// study's backend has.
	if opts.Backend.Limiter == nil {
		opts.Backend.Limiter = admit.New(opts.Backend.HeavyConcurrency, opts.Backend.Logger)
	}
	kb, err := kubernetes.New(ctx, opts.Backend)
	if err != nil {
		return Result{}, err
	}
	defer kb.Close(context.WithoutCancel(ctx))
	study := fmt.Sprintf("bench-%d", time.Now().UnixNano())
	res := Result{
		Docker: Figures{RunsPerSec: map[string]float64{}}, Kubernetes: Figures{RunsPerSec: map[string]float64{}},
		RawPods: map[string]float64{}, Pooled: map[string]float64{}, Ratio: map[string]float64{}, RawRatio: map[string]float64{},
		PooledRatio: map[string]float64{}, WarmPool: map[string]int{}, Runs: opts.Runs, ToolCalls: opts.Calls, Server: kb.Host(),
	}
	defer func() {
		cctx := context.WithoutCancel(ctx)
		docker.GC(cctx, db.Client(), docker.GCStudy(study))
		kubernetes.GC(cctx, kb.Client(), kubernetes.GCStudy(study))
	}()
	// Build and move the snapshot, make the namespace, warm both paths.
	backends := []struct {
		name string
		b    sandbox.Backend
		out  *Figures
	}{{"docker", db, &res.Docker}, {"kubernetes", kb, &res.Kubernetes}}
	for _, be := range backends {
		if err := sandboxbench.Lifecycle(ctx, be.b, sandboxbench.Env(study, "warm-"+be.name)); err != nil {
			return Result{}, fmt.Errorf("bench %s: %w", be.name, err)
		}
	}
	p, err := db.Prepare(ctx, sandboxbench.Env(study, "raw"))
	if err != nil {
		return Result{}, err
	}
	image, err := kb.PodImage(ctx, p)
	if err != nil {
		return Result{}, err
	}
	raw := rawPods{b: kb, ns: kb.Namespace(study), image: image, study: study,
		cleanup: cmp.Or(opts.Backend.CleanupTimeout, warm.DefaultOptions().CleanupTimeout)}
	if err := raw.run(ctx, "warm-raw"); err != nil {
		return Result{}, err
	}
	for _, c := range opts.Concurrency {
		size := cmp.Or(opts.WarmPool, c)
		popts := opts.Backend
		popts.Config, popts.WarmPool = kb.RESTConfig(), size
		pb, err := kubernetes.New(ctx, popts)
		if err != nil {
			return res, err
		}
		defer pb.Close(context.WithoutCancel(ctx))
		kinds := []struct {
			name  string
			round func(n, round int) (time.Duration, error)
			out   map[string]float64
		}{
			{"docker", func(n, round int) (time.Duration, error) {
				return sandboxbench.Timed(ctx, n, c, func(i int) error {
					return sandboxbench.Lifecycle(ctx, db, sandboxbench.Env(study, fmt.Sprintf("docker-%d-%d-%d", c, round, i)))
				})
			}, res.Docker.RunsPerSec},
			{"kubernetes", func(n, round int) (time.Duration, error) {
				return sandboxbench.Timed(ctx, n, c, func(i int) error {
					return sandboxbench.Lifecycle(ctx, kb, sandboxbench.Env(study, fmt.Sprintf("kube-%d-%d-%d", c, round, i)))
				})
			}, res.Kubernetes.RunsPerSec},
			{"raw pods", func(n, round int) (time.Duration, error) {
				return sandboxbench.Timed(ctx, n, c, func(i int) error {
					return raw.run(ctx, fmt.Sprintf("raw-%d-%d-%d", c, round, i))
				})
			}, res.RawPods},
			{"pooled pods", func(n, round int) (time.Duration, error) {
				return sandboxbench.Pooled(ctx, pb, n, c, study, fmt.Sprintf("pool-%d-%d", c, round))
			}, res.Pooled},
		}
		dur := make([]time.Duration, len(kinds))
		count := make([]int, len(kinds))
		for round := 0; round < 2; round++ {
			n := sandboxbench.RoundRuns(opts.Runs, round, c)
			for i, k := range kinds {
				d, err := k.round(n, round)
				if err != nil {
					return res, fmt.Errorf("bench %s: %w", k.name, err)
				}
				dur[i], count[i] = dur[i]+d, count[i]+n
			}
		}
		key := strconv.Itoa(c)
		for i, k := range kinds {
			k.out[key] = sandboxbench.Round(float64(count[i]) / dur[i].Seconds())
		}
		res.Ratio[key] = sandboxbench.Round(res.Kubernetes.RunsPerSec[key] / res.Docker.RunsPerSec[key])
		res.RawRatio[key] = sandboxbench.Round(res.Kubernetes.RunsPerSec[key] / res.RawPods[key])
		res.PooledRatio[key] = sandboxbench.Round(res.Pooled[key] / res.RawPods[key])
		res.WarmPool[key] = size
		if err := pb.Close(context.WithoutCancel(ctx)); err != nil {
			return res, err
		}
	}
	for _, be := range backends {
		med, p99, err := sandboxbench.RoundTrip(ctx, be.b, study, opts.Calls)
		if err != nil {
			return res, fmt.Errorf("bench %s: %w", be.name, err)
		}
		be.out.ToolCallMedianMS, be.out.ToolCallP99MS = sandboxbench.Round(med), sandboxbench.Round(p99)
	}
	return res, nil
}

// WriteText prints the result as a small table.
func (r Result) WriteText(w io.Writer) {
	fmt.Fprintf(w, "cluster %s, %d runs per kind and concurrency\n", r.Server, r.Runs)
	fmt.Fprintf(w, "%-12s %14s %18s %15s %14s %8s %10s %8s %10s\n", "concurrency", "docker runs/s", "kubernetes runs/s", "raw pods runs/s", "pooled runs/s",
		"k8s/dkr", "k8s/raw", "pool/raw", "warm pool")
	keys := make([]int, 0, len(r.Ratio))
	for k := range r.Ratio {
		n, _ := strconv.Atoi(k)
		keys = append(keys, n)
	}
	slices.Sort(keys)
	for _, k := range keys {
		key := strconv.Itoa(k)
		fmt.Fprintf(w, "%-12d %14.2f %18.2f %15.2f %14.2f %8.2f %10.2f %8.2f %10d\n", k, r.Docker.RunsPerSec[key], r.Kubernetes.RunsPerSec[key],
			r.RawPods[key], r.Pooled[key], r.Ratio[key], r.RawRatio[key], r.PooledRatio[key], r.WarmPool[key])
	}
	fmt.Fprintf(w, "tool call round trip over %d calls: docker median %.3f ms, p99 %.3f ms; kubernetes median %.3f ms, p99 %.3f ms\n",
		r.ToolCalls, r.Docker.ToolCallMedianMS, r.Docker.ToolCallP99MS, r.Kubernetes.ToolCallMedianMS, r.Kubernetes.ToolCallP99MS)
}
