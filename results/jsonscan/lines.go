package jsonscan

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// Lines calls fn with the 1-based number, byte offset and trimmed bytes of
// each non-blank line of the file at path; data is valid during the call
// only. Lines of any length are accepted. ctx is checked every 4096 lines.
func Lines(ctx context.Context, path string, fn func(num int, off int64, data []byte) error) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("open %s: %w", filepath.Base(path), err)
	}
	defer f.Close()
	br := bufio.NewReaderSize(f, 1<<20)
	var off int64
	var long []byte
	for num := 1; ; num++ {
		if num%4096 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		data, err := br.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			// A line longer than the buffer: gather it whole.
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

// runIDKey is how results.Writer writes the run id.
var runIDKey = []byte(`"run_id":"`)

// RunID returns the run id of a runs.jsonl line. The fast path finds the key
// as results.Writer writes it, taken where it is first found if no object
// opens before it (then it is the top-level key, not one nested in a
// value); anything else is decoded with encoding/json.
func RunID(line []byte) ([]byte, error) {
	if i := bytes.Index(line, runIDKey); i > 0 && bytes.IndexByte(line[1:i], '{') < 0 {
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
