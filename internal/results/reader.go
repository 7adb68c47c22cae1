package results

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sync"

	"golang.org/x/sync/errgroup"
)

// ReadOptions tune ReadLatest. The zero value decodes everything on up to
// four workers.
type ReadOptions struct {
	// Detail is how much of each line to decode.
	Detail Detail
	// Workers decode lines at once; 0 means GOMAXPROCS, at most 4.
	Workers int
}

// workers is how many goroutines decode (and index) at once.
func (o ReadOptions) workers() int {
	if o.Workers > 0 {
		return o.Workers
	}
	return min(runtime.GOMAXPROCS(0), 4)
}

// ReadStats describes one read of a runs file.
type ReadStats struct {
	// Lines is the number of non-blank lines in the file.
	Lines int
	// Runs is the number of distinct run ids, each passed to fn once.
	Runs int
	// Superseded counts lines replaced by a later line for the same run id.
	Superseded int
}

// batchLines is how many lines a decoding batch holds.
const batchLines = 512

// batch is a run of kept lines, decoded by a worker and consumed in order.
type batch struct {
	buf          []byte // a block of the file, shared with other batches, read-only
	starts, ends []int  // span of each line in buf
	nums         []int  // line numbers
	runs         []Run  // decoded, up to the bad line if err is set
	err          error
	ready        chan struct{}
}

// ReadLatest calls fn once per run id with the run's last line (a resumed
// study writes a re-run run again; its last line wins), in the file order
// of those lines, on the calling goroutine. fn's Run is reused afterwards:
// copy it to keep it.
//
// It reads the file twice. The first pass indexes the offset of each run
// id's last line (a hash and an offset per run, exact even when hashes
// collide); the second decodes the winning lines with a Decoder on
// opts.Workers goroutines, in batches handed back in order. Memory holds
// the index and a few blocks of the file, never all the runs. A malformed
// line, or one without a run_id, stops the read with an error naming
// file:line; an error returned by fn stops it and is returned as is. Lines
// appended between the passes are ignored.
func ReadLatest(ctx context.Context, path string, opts ReadOptions, fn func(*Run) error) (ReadStats, error) {
	name := filepath.Base(path)
	f, err := os.Open(path)
	if err != nil {
		return ReadStats{}, fmt.Errorf("open %s: %w", name, err)
	}
	defer f.Close()
	idx := newLatestIndex(f)
	if err := idx.build(ctx, path, opts.workers()); err != nil {
		return ReadStats{}, err
	}
	st := ReadStats{Lines: idx.lines, Runs: idx.runs(), Superseded: idx.lines - idx.runs()}

	seen := 0
	err = decodeInOrder(ctx, path, opts, func(num int, off int64, data []byte) (bool, error) {
		if st.Superseded == 0 {
			// Every line the first pass saw is its run's last (the usual
			// case: a study folder is compacted when a study ends): no id
			// to look up. A line appended since is ignored, as below.
			if off > idx.end || idx.lines == 0 {
				return false, nil
			}
			seen++
			return true, nil
		}
		id, err := runID(data)
		if err != nil {
			return false, fmt.Errorf("%s:%d: %w", name, num, err)
		}
		if !idx.isLatest(id, off) {
			// Superseded: not decoded, but checked all the same.
			if !json.Valid(data) {
				return false, fmt.Errorf("%s:%d: malformed line (superseded by a later line of run %s)", name, num, id)
			}
			return false, nil
		}
		seen++
		return true, nil
	}, fn)
	if err == nil && seen != st.Runs {
		err = fmt.Errorf("read %s: file changed between passes", name)
	}
	return st, err
}

// decodeInOrder scans the file, asks keep about each line, decodes the kept
// lines on an errgroup of workers and calls fn with each run in file order,
// on the calling goroutine.
func decodeInOrder(ctx context.Context, path string, opts ReadOptions, keep func(num int, off int64, data []byte) (bool, error),
	fn func(*Run) error) error {
	name := filepath.Base(path)
	workers := opts.workers()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(workers + 1) // the scanner and the decoders
	ordered := make(chan *batch, 2*workers)
	// Each batch takes a decoder from the pool, keeping what it interned.
	decoders := sync.Pool{New: func() any { return NewDecoder(opts.Detail) }}
	// Blocks whose every batch was handed to fn go back to the scanner:
	// the runs hold copies of their strings, never the block's bytes.
	free := make(chan []byte, 2)
	alloc := func(size int) []byte {
		select {
		case b := <-free:
			if cap(b) >= size {
				return b[:0]
			}
		default:
		}
		return make([]byte, 0, size)
	}
	g.Go(func() error {
		defer close(ordered)
		cur := &batch{ready: make(chan struct{})}
		send := func() error {
			select {
			case ordered <- cur:
			case <-gctx.Done():
				return gctx.Err()
			}
			b := cur
			g.Go(func() error { // waits for a free worker
				defer close(b.ready)
				dec := decoders.Get().(*Decoder)
				defer decoders.Put(dec)
				b.runs = make([]Run, len(b.ends))
				for i, end := range b.ends {
					if err := dec.Decode(b.buf[b.starts[i]:end], &b.runs[i]); err != nil {
						b.runs, b.err = b.runs[:i], fmt.Errorf("%s:%d: %w", name, b.nums[i], err)
						return b.err
					}
				}
				return nil
			})
			cur = &batch{ready: make(chan struct{}), buf: cur.buf}
			return nil
		}
		err := scanBlocks(gctx, path, alloc, func(block []byte, num int, off int64, start, end int) error {
			if cur.buf != nil && &cur.buf[0] != &block[0] && len(cur.ends) > 0 {
				// A new block: a batch never spans two buffers.
				if err := send(); err != nil {
					return err
				}
			}
			cur.buf = block
			ok, err := keep(num, off, block[start:end])
			if err != nil || !ok {
				return err
			}
			cur.starts = append(cur.starts, start)
			cur.ends = append(cur.ends, end)
			cur.nums = append(cur.nums, num)
			if len(cur.ends) == batchLines {
				return send()
			}
			return nil
		})
		if err == nil && len(cur.ends) > 0 {
			err = send()
		}
		return err
	})
	var err error
	var last []byte // the block of the batch handed to fn last
	for b := range ordered {
		if err != nil {
			continue // drain
		}
		<-b.ready
		if last != nil && &last[0] != &b.buf[0] {
			// Batches come in file order: the last block's are all done.
			select {
			case free <- last:
			default:
			}
		}
		last = b.buf
		for i := range b.runs { // up to a bad line, if any
			if err = fn(&b.runs[i]); err != nil {
				break
			}
		}
		if err == nil {
			err = b.err
		}
		if err != nil {
			cancel()
		}
	}
	gerr := g.Wait()
	if err != nil {
		return err
	}
	if cerr := ctx.Err(); cerr != nil {
		return cerr
	}
	return gerr
}
