package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"runtime/pprof"

	"github.com/spf13/cobra"

	"github.com/killchain/killchain/internal/benchdata"
	"github.com/killchain/killchain/internal/report"
	"github.com/killchain/killchain/probes/probescli"
	"github.com/killchain/killchain/sandbox/docker"
	"github.com/killchain/killchain/sandbox/kubernetes"
	"github.com/killchain/killchain/sandbox/sandboxbench/dockerbench"
	"github.com/killchain/killchain/sandbox/sandboxbench/kubebench"
	"github.com/killchain/killchain/sandbox/warm"
)

func newBenchCmd(g *globals) *cobra.Command {
	bench := &cobra.Command{
		Use:   "bench",
		Short: "Measure killchain on this machine",
		Long: `bench measures, in one run on this machine, what a study's speed depends on:
the per-run sandbox lifecycle and tool-call round trip, the report on a large
synthetic study, and the probes' extraction and training. Each prints its
figures on stdout (one JSON object with --json); docs/benchmarks.md records
the measured ones.`,
		Example: `  killchain bench sandbox
  killchain bench runner --runs 1024 --concurrency 256 --latency 500ms
  killchain bench report --runs 100000
  killchain bench probes`,
	}
	bench.AddCommand(newBenchSandboxCmd(g), newBenchRunnerCmd(g), newBenchReportCmd(g), probescli.BenchCommand())
	return bench
}

func newBenchSandboxCmd(g *globals) *cobra.Command {
	var (
		asJSON  bool
		runs    int
		pool    int
		levels  []int
		backend string
		kube    kubeFlags
	)
	sbx := &cobra.Command{
		Use:   "sandbox [--backend docker|kubernetes]",
		Short: "Measure the per-run sandbox lifecycle and tool-call round trip",
		Long: `sandbox measures, in one run on this machine, the raw lifecycle of the
toolbox image (create → start → wait → remove, as docker run --rm does) against
killchain's per-run lifecycle (from snapshot → plant → 3 tool calls → read
state → remove), and the same lifecycle from a warm pool of started
containers (timed from a full pool until it is full again), at each
--concurrency (default 1, the machine's cores up to 8, and 8), as runs per
second and their ratios to the raw lifecycle; and the round trip of a tool
call inside a running sandbox (median and p99).

With --backend kubernetes it measures, in alternating rounds, killchain's
lifecycle on Docker and on the cluster, the raw pod lifecycle through
client-go (create → Running → exec → delete) and killchain's pods from a warm
pool, with each backend's tool-call round trip: the cluster comes from
--kubeconfig/--context (or KUBECONFIG), snapshot images go to --registry
(pinned by digest) or through --import-command.`,
		Example: `  killchain bench sandbox --runs 48
  killchain bench sandbox --backend kubernetes --registry 127.0.0.1:5000/killchain --json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			for _, c := range levels {
				if c < 1 {
					return usagef("--concurrency %d: want 1 or more", c)
				}
			}
			var res interface{ WriteText(io.Writer) }
			switch backend {
			case "docker":
				r, err := dockerbench.Bench(cmd.Context(), dockerbench.Options{Runs: runs, Concurrency: levels, WarmPool: pool,
					Backend: docker.Options{Options: warm.Options{Logger: g.logger(nil)}}})
				if err != nil {
					return err
				}
				res = r
			case "kubernetes":
				r, err := kube.bench(cmd.Context(), g, runs, levels, pool)
				if err != nil {
					return err
				}
				res = r
			default:
				return usagef("--backend %q: want docker or kubernetes", backend)
			}
			if asJSON {
				enc := json.NewEncoder(g.stdout)
				enc.SetIndent("", "  ")
				return enc.Encode(res)
			}
			res.WriteText(g.stdout)
			return nil
		},
	}
	sbx.Flags().BoolVar(&asJSON, "json", false, "print one JSON object")
	sbx.Flags().IntVar(&runs, "runs", 24, "lifecycles measured per kind and concurrency, in two rounds of at least the concurrency each")
	sbx.Flags().IntSliceVar(&levels, "concurrency", nil, "concurrency levels measured, comma-separated (default 1, the machine's cores up to 8, and 8)")
	sbx.Flags().IntVar(&pool, "warm-pool", 0, "warm sandboxes per task in the pooled measurement (0: the concurrency measured)")
	sbx.Flags().StringVar(&backend, "backend", "docker", `"docker", or "kubernetes" to measure the cluster beside Docker`)
	kube.register(sbx, true)
	return sbx
}

// bench measures the cluster's lifecycle beside Docker's.
func (k *kubeFlags) bench(ctx context.Context, g *globals, runs int, levels []int, pool int) (kubebench.Result, error) {
	dopts := docker.DefaultOptions()
	dopts.Logger = g.logger(nil)
	db, err := docker.New(ctx, dopts)
	if err != nil {
		return kubebench.Result{}, err
	}
	defer db.Close(context.WithoutCancel(ctx))
	opts := kubernetes.Options{
		Kubeconfig: k.kubeconfig, Context: k.context, Namespace: k.namespace,
		Images: kubernetes.ImagesRegistry, Registry: k.registry, RuntimeClass: k.runtimeClass,
	}
	opts.Logger = g.logger(nil)
	if k.importCommand != "" {
		opts.Images, opts.ImportCommand = kubernetes.ImagesImport, k.importCommand
	}
	return kubebench.Bench(ctx, kubebench.Options{Runs: runs, Concurrency: levels, WarmPool: pool, Docker: db, Backend: opts})
}

func newBenchReportCmd(g *globals) *cobra.Command {
	var (
		runs    int
		seed    int64
		cache   string
		asJSON  bool
		profile string
	)
	cmd := &cobra.Command{
		Use:   "report",
		Short: "Time `killchain report` on a synthetic study of many runs",
		Long: `report generates (once, cached in --cache) a synthetic study of --runs runs
with their events, then measures writing its report (tables and figures from
runs and events) into a temporary folder it removes: wall time, peak heap and
the process's peak resident set.`,
		Example: `  killchain bench report --runs 100000 --json`,
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if cache == "" {
				cache = os.TempDir()
			}
			fmt.Fprintf(g.stderr, "preparing a synthetic study of %d runs in %s (cached)\n", runs, cache)
			dir, err := benchdata.Cached(cache, runs, seed)
			if err != nil {
				return err
			}
			out, err := os.MkdirTemp("", "killchain-bench-report-")
			if err != nil {
				return err
			}
			defer os.RemoveAll(out)
			if profile != "" {
				pf, err := os.Create(profile)
				if err != nil {
					return err
				}
				defer pf.Close()
				if err := pprof.StartCPUProfile(pf); err != nil {
					return err
				}
			}
			m, err := benchdata.Measure(func() error { return report.Write(dir, report.Options{OutDir: out}) })
			if profile != "" {
				pprof.StopCPUProfile()
			}
			if err != nil {
				return err
			}
			if asJSON {
				return json.NewEncoder(g.stdout).Encode(map[string]any{
					"runs": runs, "seconds": m.Elapsed.Seconds(), "peak_heap_mb": float64(m.PeakHeap) / (1 << 20),
					"peak_sys_mb": float64(m.PeakSys) / (1 << 20), "max_rss_mb": float64(m.MaxRSS) / (1 << 20),
				})
			}
			fmt.Fprintf(g.stdout, "runs %d  report %.1fs  peak heap %.0f MB  max RSS %.0f MB\n",
				runs, m.Elapsed.Seconds(), float64(m.PeakHeap)/(1<<20), float64(m.MaxRSS)/(1<<20))
			return nil
		},
	}
	cmd.Flags().IntVar(&runs, "runs", 1_000_000, "runs in the synthetic study")
	cmd.Flags().Int64Var(&seed, "seed", 1, "seed of the synthetic study")
	cmd.Flags().StringVar(&cache, "cache", "", "where the synthetic study is kept (default the temp folder)")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print one JSON object")
	cmd.Flags().StringVar(&profile, "cpuprofile", "", "write a CPU profile of the report to this file (go tool pprof reads it)")
	return cmd
}
