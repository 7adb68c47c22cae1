package analysis

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/killchain/killchain/internal/benchdata"
	"github.com/killchain/killchain/internal/results"
)

// BenchReport is one measured analysis of a synthetic study.
type BenchReport struct {
	Dir       string
	Runs      int
	Generated bool          // the study was written by this call
	Generate  time.Duration // time to write it, when Generated
	benchdata.Measurement
	Stats  results.ReadStats
	Result Result
}

// Bench measures AnalyzeDir on a synthetic study of runs runs in dir,
// writing the study first (benchdata.Generate) unless dir already holds
// one of that size and seed.
func Bench(ctx context.Context, dir string, runs int, seed int64, opts Options) (BenchReport, error) {
	rep := BenchReport{Dir: dir, Runs: runs}
	if !haveStudy(dir, runs, seed) {
		start := time.Now()
		if err := benchdata.Generate(dir, runs, seed); err != nil {
			return rep, err
		}
		rep.Generated, rep.Generate = true, time.Since(start)
	}
	m, err := benchdata.Measure(func() error {
		var err error
		rep.Result, rep.Stats, err = AnalyzeDir(ctx, dir, opts)
		return err
	})
	rep.Measurement = m
	if err != nil {
		return rep, fmt.Errorf("bench: %w", err)
	}
	return rep, nil
}

// haveStudy reports whether dir holds a synthetic study of n runs and seed.
func haveStudy(dir string, n int, seed int64) bool {
	b, err := os.ReadFile(filepath.Join(dir, "manifest.json"))
	if err != nil {
		return false
	}
	var m struct {
		Planned int    `json:"planned_runs"`
		Seed    int64  `json:"seed"`
		Backend string `json:"sandbox_backend"`
	}
	if json.Unmarshal(b, &m) != nil || m.Planned != n || m.Seed != seed || m.Backend != "synthetic" {
		return false
	}
	_, err = os.Stat(filepath.Join(dir, "runs.jsonl"))
	return err == nil
}

// String summarizes the measurement in one line.
func (b BenchReport) String() string {
	const mb = 1 << 20
	return fmt.Sprintf("analysis of %d runs: %.2fs, peak heap %.0f MB, peak from OS %.0f MB, max RSS %.0f MB",
		b.Stats.Runs, b.Elapsed.Seconds(), float64(b.PeakHeap)/mb, float64(b.PeakSys)/mb, float64(b.MaxRSS)/mb)
}
