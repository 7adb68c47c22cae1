package results

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"hash/maphash"
	"io"
	"math"
	"os"
	"path/filepath"

	"golang.org/x/sync/errgroup"
)

// latestIndex maps each run id of a runs file to the offset of its last
// line (a resumed run is written again; its last line wins). It keeps a
// 64-bit hash of each id, about 40 bytes a run against a hundred for the ids
// themselves, and is exact all the same: when a line's hash is already
// there, the earlier line is read back to compare the ids, and an id whose
// hash collides with another id's is kept by its string in more. Hash hits
// are rare: superseded lines and, about once in 10⁸ for a million runs, a
// collision.
type latestIndex struct {
	hash func(id []byte) uint64
	last map[uint64]int64
	more map[string]int64
	file *os.File // the runs file, to read an earlier line back
	buf  []byte
	// lines counts the non-blank lines added; end is the offset of the
	// last one.
	lines int
	end   int64
}

func newLatestIndex(f *os.File) *latestIndex {
	seed := maphash.MakeSeed()
	return &latestIndex{
		hash: func(id []byte) uint64 { return maphash.Bytes(seed, id) },
		last: make(map[uint64]int64), more: make(map[string]int64), file: f,
	}
}

// add records that the line at off has run id id.
func (x *latestIndex) add(id []byte, off int64) error {
	return x.addHash(x.hash(id), off, func() ([]byte, error) { return id, nil })
}

// addHash records that the line at off has a run id of hash h; idOf gives
// the id when the hash is already there.
func (x *latestIndex) addHash(h uint64, off int64, idOf func() ([]byte, error)) error {
	x.lines++
	x.end = max(x.end, off)
	prev, ok := x.last[h]
	if !ok {
		x.last[h] = off
		return nil
	}
	id, err := idOf()
	if err != nil {
		return err
	}
	id = bytes.Clone(id) // idAt's buffer is read into again below
	if _, ok := x.more[string(id)]; ok {
		x.more[string(id)] = off
		return nil
	}
	other, err := x.idAt(prev)
	if err != nil {
		return err
	}
	if bytes.Equal(other, id) {
		x.last[h] = off
	} else {
		x.more[string(id)] = off
	}
	return nil
}

// reset empties the index.
func (x *latestIndex) reset() {
	clear(x.last)
	clear(x.more)
	x.lines, x.end = 0, 0
}

// runs returns the number of distinct run ids.
func (x *latestIndex) runs() int { return len(x.last) + len(x.more) }

// isLatest reports whether the line at off, of run id id, is the last line
// of its run.
func (x *latestIndex) isLatest(id []byte, off int64) bool {
	if o, ok := x.last[x.hash(id)]; ok && o == off {
		return true
	}
	o, ok := x.more[string(id)]
	return ok && o == off
}

// idAt reads back the run id of the line at off.
func (x *latestIndex) idAt(off int64) ([]byte, error) {
	x.buf = x.buf[:0]
	chunk := make([]byte, 4096)
	for {
		n, err := x.file.ReadAt(chunk, off+int64(len(x.buf)))
		x.buf = append(x.buf, chunk[:n]...)
		if i := bytes.IndexByte(x.buf, '\n'); i >= 0 {
			x.buf = x.buf[:i]
			break
		}
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("read back line at %d: %w", off, err)
		}
	}
	return runID(bytes.TrimSpace(x.buf))
}

// runIDKey is how Writer writes the run id.
var runIDKey = []byte(`"run_id":"`)

// runID returns the run id of a runs.jsonl line, the same one the decoder
// reads. The fast path finds the key as Writer writes it, when it occurs
// once in the line and no object opens before it (then it is the top-level
// key, not one nested in a value), and takes a value without escapes;
// anything else — a line that repeats the key among them, whose last value
// is the one encoding/json and the decoder keep — is decoded with
// encoding/json.
func runID(line []byte) ([]byte, error) {
	if i := bytes.Index(line, runIDKey); i > 0 && bytes.IndexByte(line[1:i], '{') < 0 &&
		bytes.Index(line[i+len(runIDKey):], runIDKey) < 0 {
		rest := line[i+len(runIDKey):]
		if j := bytes.IndexByte(rest, '"'); j > 0 && bytes.IndexByte(rest[:j], '\\') < 0 {
			return rest[:j], nil
		}
	}
	var v struct {
		RunID string `json:"run_id"`
	}
	if err := json.Unmarshal(line, &v); err != nil {
		return nil, err
	}
	if v.RunID == "" {
		return nil, errors.New("missing run_id")
	}
	return []byte(v.RunID), nil
}

// parallelIndexMin is the size of a runs file from which the first pass is
// split over the workers.
var parallelIndexMin int64 = 64 << 20

// build indexes the runs file at path (x's file): one scan, or on a large
// file one per worker over a range of it each, their hashes then added in
// file order. A bad line found by a range's scan is named by the one scan,
// which counts line numbers.
func (x *latestIndex) build(ctx context.Context, path string, workers int) error {
	name := filepath.Base(path)
	serial := func() error {
		return scanBlocks(ctx, path, reuse(), func(block []byte, num int, off int64, start, end int) error {
			id, err := runID(block[start:end])
			if err == nil {
				err = x.add(id, off)
			}
			if err != nil {
				return fmt.Errorf("%s:%d: %w", name, num, err)
			}
			return nil
		})
	}
	st, err := x.file.Stat()
	if err != nil || workers < 2 || st.Size() < parallelIndexMin {
		return serial()
	}
	type entry struct {
		h   uint64
		off int64
	}
	size := st.Size()
	parts := make([][]entry, workers)
	g, gctx := errgroup.WithContext(ctx)
	for i := range workers {
		from, to := size*int64(i)/int64(workers), size*int64(i+1)/int64(workers)
		if i == workers-1 {
			to = math.MaxInt64 // to the end, as the one scan reads
		}
		g.Go(func() error {
			return scanRange(gctx, x.file, from, to, reuse(), func(block []byte, _ int, off int64, start, end int) error {
				id, err := runID(block[start:end])
				if err != nil {
					return err
				}
				parts[i] = append(parts[i], entry{x.hash(id), off})
				return nil
			})
		})
	}
	if err := g.Wait(); err != nil {
		if cerr := ctx.Err(); cerr != nil {
			return cerr
		}
		x.reset()
		return serial()
	}
	for _, part := range parts {
		for _, e := range part {
			if err := x.addHash(e.h, e.off, func() ([]byte, error) { return x.idAt(e.off) }); err != nil {
				return fmt.Errorf("%s: %w", name, err)
			}
		}
	}
	return nil
}
