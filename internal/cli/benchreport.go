package cli

import (
	"encoding/json"
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/killchain/killchain/internal/benchdata"
	"github.com/killchain/killchain/internal/report"
)

func newBenchReportCmd(g *globals) *cobra.Command {
	var (
		runs   int
		seed   int64
		cache  string
		asJSON bool
	)
	cmd := &cobra.Command{
		Use:   "report",
		Short: "Time `killchain report` on a synthetic study of many runs",
		Long: `report generates (once, cached) a synthetic study of --runs runs with their
events, then measures writing its report (tables and figures from runs and
events): wall time, peak heap and the process's peak resident set.`,
		Args: cobra.NoArgs,
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
			m, err := benchdata.Measure(func() error { return report.Write(dir, report.Options{OutDir: out}) })
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
	return cmd
}
