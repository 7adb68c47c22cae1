package results

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
)

// ReadRuns streams the runs file at path, calling fn once per line in file
// order. Lines may be of any length; blank lines are skipped. A malformed
// line, or one without a run_id, stops the read with an error naming
// file:line. An error returned by fn stops the read and is returned as is.
//
// A resumed study may hold several lines for one run_id; ReadRuns returns
// them all. Use ReadLatestRuns for the last line of each run only.
func ReadRuns(path string, fn func(Run) error) error {
	dec := NewDecoder(Full)
	return scanFile(path, func(l line) error {
		var r Run
		if err := dec.Decode(l.data, &r); err != nil {
			return l.errorf("%w", err)
		}
		if r.RunID == "" {
			return l.errorf("missing run_id")
		}
		return fn(r)
	})
}

// ReadLatestRuns calls fn once per run_id with the run's last line, in the
// file order of those lines, fully decoded: ReadLatest with the default
// options.
func ReadLatestRuns(path string, fn func(Run) error) (ReadStats, error) {
	return ReadLatest(context.Background(), path, ReadOptions{}, func(r *Run) error { return fn(*r) })
}

// line is one non-blank line of a JSON-lines file.
type line struct {
	name   string // file name for messages
	num    int    // 1-based line number
	offset int64  // byte offset of the line's first byte
	data   []byte // trimmed; valid during the callback only
}

// decode unmarshals the line into v.
func (l line) decode(v any) error {
	if err := json.Unmarshal(l.data, v); err != nil {
		return l.errorf("%w", err)
	}
	return nil
}

// errorf returns an error prefixed with file:line.
func (l line) errorf(format string, args ...any) error {
	return fmt.Errorf("%s:%d: "+format, append([]any{l.name, l.num}, args...)...)
}

// scanFile calls fn for each non-blank line of the file at path.
func scanFile(path string, fn func(line) error) error {
	name := filepath.Base(path)
	return Lines(context.Background(), path, func(num int, off int64, data []byte) error {
		return fn(line{name: name, num: num, offset: off, data: data})
	})
}
