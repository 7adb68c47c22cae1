package report

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"

	"github.com/killchain/killchain/results"
	"github.com/killchain/killchain/results/jsonscan"
)

// readLatestRuns is results.ReadLatestRuns made for studies of millions of
// runs: it calls fn once per run id with the run's last line, in file order.
// The first pass indexes the last line of each run id (jsonscan.Latest);
// the second decodes the winning lines with runScanner, falling back to
// encoding/json for any line the scanner does not take.
//
// nested decodes each run's forensics and harness labels; without it they
// are left nil. fn gets a pointer to a Run reused for the next line: copy it to keep it.
func readLatestRuns(path string, nested bool, fn func(*results.Run) error) (results.ReadStats, error) {
	latest, err := jsonscan.IndexLatest(context.Background(), path)
	if err != nil {
		return results.ReadStats{}, err
	}
	st := results.ReadStats{Lines: latest.Lines, Runs: latest.Runs(), Superseded: latest.Lines - latest.Runs()}
	name := filepath.Base(path)

	seen := 0
	err = decodeParallel(path, nested, func(num int, off int64, data []byte) (bool, error) {
		id, err := jsonscan.RunID(data)
		if err != nil {
			return false, fmt.Errorf("%s:%d: %w", name, num, err)
		}
		keep := latest.IsLatest(id, off)
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
