package analysis

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"runtime"
	"sync"

	"github.com/killchain/killchain/results"
	"github.com/killchain/killchain/results/jsonscan"
)

// AnalyzeDir computes the analysis of the study folder dir (its
// runs.jsonl); see AnalyzeFile.
func AnalyzeDir(ctx context.Context, dir string, opts Options) (Result, results.ReadStats, error) {
	return AnalyzeFile(ctx, filepath.Join(dir, "runs.jsonl"), opts)
}

// AnalyzeFile streams the runs file at path into an Accumulator and returns
// the result. The last line of each run id wins, as in
// results.ReadLatestRuns: a first pass indexes the last line of each run id
// (jsonscan.Latest, about 40 bytes a run); the second decodes the winning
// lines on GOMAXPROCS workers, each with its own Accumulator, merged at the
// end. No run is held beyond its decoding.
func AnalyzeFile(ctx context.Context, path string, opts Options) (Result, results.ReadStats, error) {
	latest, err := jsonscan.IndexLatest(ctx, path)
	if err != nil {
		return Result{}, results.ReadStats{}, err
	}
	st := results.ReadStats{Lines: latest.Lines, Runs: latest.Runs(), Superseded: latest.Lines - latest.Runs()}
	name := filepath.Base(path)

	workers := max(1, runtime.GOMAXPROCS(0))
	type batch struct {
		first int
		data  [][]byte
	}
	jobs := make(chan batch, workers*2)
	accs := make([]*Accumulator, workers)
	errs := make([]error, workers)
	var wg sync.WaitGroup
	for w := range workers {
		accs[w] = NewAccumulator(opts)
		wg.Add(1)
		go func() {
			defer wg.Done()
			var r results.Run
			var f results.Forensics
			dec := newLineDecoder()
			for b := range jobs {
				if errs[w] != nil {
					continue
				}
				for k, d := range b.data {
					feats, err := dec.decode(d, &r, &f)
					if err == nil {
						accs[w].add(&r, func() ([]float64, error) { return dec.features(feats) })
						continue
					}
					slow := results.Run{}
					if err := json.Unmarshal(d, &slow); err != nil {
						errs[w] = fmt.Errorf("%s:%d: %w", name, b.first+k, err)
						break
					}
					accs[w].Add(&slow)
				}
			}
		}()
	}
	const batchSize = 256
	cur := batch{}
	seen := 0
	err = jsonscan.Lines(ctx, path, func(num int, off int64, data []byte) error {
		id, err := jsonscan.RunID(data)
		if err != nil {
			return fmt.Errorf("%s:%d: %w", name, num, err)
		}
		if !latest.IsLatest(id, off) {
			return nil
		}
		seen++
		if len(cur.data) == 0 {
			cur.first = num
		}
		cur.data = append(cur.data, bytes.Clone(data))
		if len(cur.data) == batchSize {
			jobs <- cur
			cur = batch{}
		}
		return nil
	})
	if len(cur.data) > 0 && err == nil {
		jobs <- cur
	}
	close(jobs)
	wg.Wait()
	if err == nil {
		err = errors.Join(errs...)
	}
	if err == nil && seen != st.Runs {
		err = fmt.Errorf("read %s: file changed between passes", name)
	}
	if err != nil {
		return Result{}, st, err
	}
	for _, a := range accs[1:] {
		accs[0].Merge(a)
	}
	return accs[0].Result(), st, nil
}
