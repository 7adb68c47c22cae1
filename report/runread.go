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

	sc := newRunScanner(nested)
	var r results.Run
	seen := 0
	err = scanJSONLines(path, func(num int, off int64, data []byte) error {
		id, err := lineRunID(data)
		if err != nil {
			return fmt.Errorf("%s:%d: %w", name, num, err)
		}
		if latest[maphash.Bytes(seed, id)] != off {
			return nil
		}
		seen++
		if sc.decode(data, &r) != nil {
			r = results.Run{}
			if err := json.Unmarshal(data, &r); err != nil {
				return fmt.Errorf("%s:%d: %w", name, num, err)
			}
		}
		return fn(&r)
	})
	if err == nil && seen != st.Runs {
		err = fmt.Errorf("read %s: file changed between passes", name)
	}
	return st, err
}

// runIDKey is how results.Writer writes the run id.
var runIDKey = []byte(`"run_id":"`)

// lineRunID returns the run id of a runs.jsonl line. The fast path finds the
// key as results.Writer writes it; anything else is decoded with
// encoding/json.
func lineRunID(data []byte) ([]byte, error) {
	if i := bytes.Index(data, runIDKey); i >= 0 && bytes.Count(data, runIDKey) == 1 {
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
