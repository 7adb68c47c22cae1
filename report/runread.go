package report

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"hash/maphash"
	"io"
	"os"
	"path/filepath"
	"runtime"

	"github.com/killchain/killchain/results"
)

// readLatestRuns is results.ReadLatestRuns made for studies of millions of
// runs: it calls fn once per run id with the run's last line, in file order.
// The first pass keeps only a 64-bit hash of each run id and the offset of
// its last line (about 40 bytes a run, against a hundred for the ids
// themselves); the second decodes the winning lines with runScanner, falling
// back to encoding/json for any line the scanner does not take. Two distinct
// ids whose hashes collide (odds about 3·10⁻⁸ for a million runs) would
// count as one resumed run.
//
// nested decodes each run's forensics and harness labels; without it they
// are left nil. fn gets a pointer to a Run reused for the next line: copy it to keep it.
func readLatestRuns(path string, nested bool, fn func(*results.Run) error) (results.ReadStats, error) {
	seed := maphash.MakeSeed()
	latest := make(map[uint64]int64)
	lines := 0
	name := filepath.Base(path)
	err := scanJSONLines(path, func(num int, off int64, data []byte) error {
		id, err := lineRunID(data)
		if err != nil {
			return fmt.Errorf("%s:%d: %w", name, num, err)
		}
		latest[maphash.Bytes(seed, id)] = off
		lines++
		return nil
	})
	if err != nil {
		return results.ReadStats{}, err
	}
	st := results.ReadStats{Lines: lines, Runs: len(latest), Superseded: lines - len(latest)}

	seen := 0
	err = decodeParallel(path, nested, func(num int, off int64, data []byte) (bool, error) {
		id, err := lineRunID(data)
		if err != nil {
			return false, fmt.Errorf("%s:%d: %w", name, num, err)
		}
		keep := latest[maphash.Bytes(seed, id)] == off
		if keep {
			seen++
		}
		return keep, nil
	}, fn)
	if err == nil && seen != st.Runs {
		err = fmt.Errorf("read %s: file changed between passes", name)
	}
	return st, err
}

// batchLines is how many lines a decoding batch holds.
const batchLines = 512

// batch is a run of kept lines, decoded by a worker and consumed in order.
type batch struct {
	buf          []byte // a block of the file, shared with other batches, read-only
	starts, ends []int  // offsets of each line in buf
	nums         []int  // line numbers
	runs         []results.Run
	err          error
	ready        chan struct{}
}

// decodeParallel scans the file, asks keep about each line, decodes the
// kept lines on up to GOMAXPROCS workers and calls fn with each run in file
// order, on the calling goroutine.
func decodeParallel(path string, nested bool, keep func(num int, off int64, data []byte) (bool, error),
	fn func(*results.Run) error) error {
	name := filepath.Base(path)
	workers := max(1, min(runtime.GOMAXPROCS(0), 4))
	work := make(chan *batch, workers)
	ordered := make(chan *batch, 2*workers)
	stop := make(chan struct{})
	var readErr error
	go func() {
		defer close(work)
		defer close(ordered)
		cur := &batch{ready: make(chan struct{})}
		send := func() bool {
			select {
			case ordered <- cur:
			case <-stop:
				return false
			}
			work <- cur
			cur = &batch{ready: make(chan struct{}), buf: cur.buf}
			return true
		}
		readErr = scanBlocks(path, func(block []byte, num int, off int64, start, end int) error {
			if cur.buf != nil && &cur.buf[0] != &block[0] && len(cur.ends) > 0 {
				// A new block: the batch must not span two buffers.
				if !send() {
					return errStopRead
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
			if len(cur.ends) == batchLines && !send() {
				return errStopRead
			}
			return nil
		})
		if readErr == nil && len(cur.ends) > 0 {
			send()
		}
	}()
	for range workers {
		go func() {
			sc := newRunScanner(nested)
			for b := range work {
				b.runs = make([]results.Run, len(b.ends))
				for i, end := range b.ends {
					data := b.buf[b.starts[i]:end]
					if sc.decode(data, &b.runs[i]) != nil {
						b.runs[i] = results.Run{}
						if err := json.Unmarshal(data, &b.runs[i]); err != nil {
							b.err = fmt.Errorf("%s:%d: %w", name, b.nums[i], err)
							break
						}
					}
				}
				close(b.ready)
			}
		}()
	}
	var err error
	for b := range ordered {
		if err != nil {
			continue // drain
		}
		<-b.ready
		if err = b.err; err != nil {
			close(stop)
			continue
		}
		for i := range b.runs {
			if err = fn(&b.runs[i]); err != nil {
				close(stop)
				break
			}
		}
	}
	if err != nil {
		return err
	}
	if readErr != nil && !errors.Is(readErr, errStopRead) {
		return readErr
	}
	return nil
}

// blockSize is how much of the runs file is read at a time in the
// decoding pass; a line longer than a block gets a block of its own.
var blockSize = 8 << 20

// scanBlocks reads the file at path in blocks and calls fn for each
// non-blank line with its block, 1-based number, file offset and its
// trimmed span in the block. Blocks are never reused, so a span stays valid
// after the call; the line is not copied.
func scanBlocks(path string, fn func(block []byte, num int, off int64, start, end int) error) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("open %s: %w", filepath.Base(path), err)
	}
	defer f.Close()
	var carry []byte
	var off int64 // file offset of block[0]
	num := 0
	for eof := false; !eof; {
		block := make([]byte, len(carry), max(blockSize, 2*len(carry)))
		copy(block, carry)
		n, err := io.ReadFull(f, block[len(block):cap(block)])
		block = block[:len(block)+n]
		switch {
		case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
			eof = true
		case err != nil:
			return fmt.Errorf("read %s: %w", filepath.Base(path), err)
		}
		pos := 0
		for {
			nl := bytes.IndexByte(block[pos:], '\n')
			lineEnd := pos + nl
			if nl < 0 {
				if !eof {
					break
				}
				lineEnd = len(block)
				if pos == lineEnd {
					break
				}
			}
			num++
			start, end := pos, lineEnd
			for start < end && isSpace(block[start]) {
				start++
			}
			for end > start && isSpace(block[end-1]) {
				end--
			}
			if start < end {
				if err := fn(block, num, off+int64(pos), start, end); err != nil {
					return err
				}
			}
			pos = lineEnd + 1
			if pos >= len(block) {
				break
			}
		}
		pos = min(pos, len(block))
		carry = block[pos:]
		off += int64(pos)
	}
	return nil
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\r' || c == '\n' }

// errStopRead ends the reader early.
var errStopRead = errors.New("stop reading")

// runIDKey is how results.Writer writes the run id.
var runIDKey = []byte(`"run_id":"`)

// lineRunID returns the run id of a runs.jsonl line. The fast path finds the
// key as results.Writer writes it; anything else is decoded with
// encoding/json.
func lineRunID(data []byte) ([]byte, error) {
	// The first "run_id" key is taken; results.Writer writes it once, near
	// the start of the line.
	if i := bytes.Index(data, runIDKey); i >= 0 {
		start := i + len(runIDKey)
		if j := bytes.IndexByte(data[start:], '"'); j > 0 && bytes.IndexByte(data[start:start+j], '\\') < 0 {
			return data[start : start+j], nil
		}
	}
	var id struct {
		RunID string `json:"run_id"`
	}
	if err := json.Unmarshal(data, &id); err != nil {
		return nil, err
	}
	if id.RunID == "" {
		return nil, errors.New("missing run_id")
	}
	return []byte(id.RunID), nil
}

// scanJSONLines calls fn with the 1-based number, byte offset and trimmed
// bytes of each non-blank line of the file at path. data is valid during the
// call only. Lines of any length are accepted.
func scanJSONLines(path string, fn func(num int, off int64, data []byte) error) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("open %s: %w", filepath.Base(path), err)
	}
	defer f.Close()
	br := bufio.NewReaderSize(f, 1<<20)
	var off int64
	var long []byte
	for num := 1; ; num++ {
		data, err := br.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			long = append(long[:0], data...)
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
			return fmt.Errorf("%s:%d: read: %w", filepath.Base(path), num, err)
		}
	}
}
