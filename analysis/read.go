package analysis

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"hash/maphash"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"sync"

	"github.com/killchain/killchain/results"
)

// AnalyzeDir computes the analysis of the study folder dir (its
// runs.jsonl); see AnalyzeFile.
func AnalyzeDir(ctx context.Context, dir string, opts Options) (Result, results.ReadStats, error) {
	return AnalyzeFile(ctx, filepath.Join(dir, "runs.jsonl"), opts)
}

// AnalyzeFile streams the runs file at path into an Accumulator and returns
// the result. The last line of each run id wins, as in
// results.ReadLatestRuns: a first pass keeps a 64-bit hash of each run id
// and the offset of its last line (about 40 bytes a run); the second
// decodes the winning lines on GOMAXPROCS workers, each with its own
// Accumulator, merged at the end. No run is held beyond its decoding.
func AnalyzeFile(ctx context.Context, path string, opts Options) (Result, results.ReadStats, error) {
	seed := maphash.MakeSeed()
	latest := make(map[uint64]int64)
	lines := 0
	name := filepath.Base(path)
	err := scan(ctx, path, func(num int, off int64, data []byte) error {
		id, err := runIDOf(data)
		if err != nil {
			return fmt.Errorf("%s:%d: %w", name, num, err)
		}
		latest[maphash.Bytes(seed, id)] = off
		lines++
		return nil
	})
	if err != nil {
		return Result{}, results.ReadStats{}, err
	}
	st := results.ReadStats{Lines: lines, Runs: len(latest), Superseded: lines - len(latest)}

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
	err = scan(ctx, path, func(num int, off int64, data []byte) error {
		id, err := runIDOf(data)
		if err != nil {
			return fmt.Errorf("%s:%d: %w", name, num, err)
		}
		if latest[maphash.Bytes(seed, id)] != off {
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

// runIDKey is how results.Writer writes the run id.
var runIDKey = []byte(`"run_id":"`)

// runIDOf returns a line's run id: found directly when written as
// results.Writer writes it, decoded otherwise.
func runIDOf(data []byte) ([]byte, error) {
	// The key is taken where it is first found if no object opens before
	// it: then it is the top-level key, not one nested in a value.
	if i := bytes.Index(data, runIDKey); i > 0 && bytes.IndexByte(data[1:i], '{') < 0 {
		rest := data[i+len(runIDKey):]
		if j := bytes.IndexByte(rest, '"'); j > 0 && bytes.IndexByte(rest[:j], '\\') < 0 {
			return rest[:j], nil
		}
	}
	var v struct {
		RunID string `json:"run_id"`
	}
	if err := json.Unmarshal(data, &v); err != nil {
		return nil, err
	}
	if v.RunID == "" {
		return nil, errors.New("missing run_id")
	}
	return []byte(v.RunID), nil
}

// scan calls fn for each non-blank line of the file, with its 1-based
// number and byte offset; data is valid during the call only.
func scan(ctx context.Context, path string, fn func(num int, off int64, data []byte) error) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("open runs: %w", err)
	}
	defer f.Close()
	br := bufio.NewReaderSize(f, 1<<20)
	var off int64
	for num := 1; ; num++ {
		if num%4096 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		data, err := br.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			// A line longer than the buffer: gather it whole.
			long := bytes.Clone(data)
			for errors.Is(err, bufio.ErrBufferFull) {
				data, err = br.ReadSlice('\n')
				long = append(long, data...)
			}
			data = long
		}
		if len(data) > 0 {
			start := off
			off += int64(len(data))
			if t := bytes.TrimSpace(data); len(t) > 0 {
				if ferr := fn(num, start, t); ferr != nil {
					return ferr
				}
			}
		}
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("read runs: %w", err)
		}
	}
}
