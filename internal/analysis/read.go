package analysis

import (
	"context"
	"path/filepath"

	"github.com/killchain/killchain/internal/results"
)

// AnalyzeDir computes the analysis of the study folder dir (its
// runs.jsonl); see AnalyzeFile.
func AnalyzeDir(ctx context.Context, dir string, opts Options) (Result, results.ReadStats, error) {
	return AnalyzeFile(ctx, filepath.Join(dir, results.RunsFile), opts)
}

// AnalyzeFile streams the runs file at path into an Accumulator and returns
// the result. The last line of each run id wins (results.ReadLatest, which
// decodes on several goroutines); no run is held beyond its decoding.
func AnalyzeFile(ctx context.Context, path string, opts Options) (Result, results.ReadStats, error) {
	acc := NewAccumulator(opts)
	st, err := results.ReadLatest(ctx, path, results.ReadOptions{Detail: results.NoProvenance}, func(r *results.Run) error {
		acc.Add(r)
		return nil
	})
	if err != nil {
		return Result{}, st, err
	}
	return acc.Result(), st, nil
}
