package results

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
)

// ReadRuns streams the runs file at path, calling fn once per line in file
// order. Lines may be of any length; blank lines are skipped. A malformed
// line, or one without a run_id, stops the read with an error naming
// file:line. An error returned by fn stops the read and is returned as is.
//
// A resumed study may hold several lines for one run_id; ReadRuns returns
// them all. Use ReadLatestRuns for the last line of each run only.
func ReadRuns(path string, fn func(Run) error) error {
	return scanFile(path, func(l line) error {
		var r Run
		if err := l.decode(&r); err != nil {
			return err
		}
		if r.RunID == "" {
			return l.errorf("missing run_id")
		}
		return fn(r)
	})
}

// LatestRuns indexes the runs file at path: for each run_id it returns the
// byte offset of the run's last line, the one that wins when a resumed study
// re-ran the run. Only the ids and offsets are kept in memory, not the runs.
func LatestRuns(path string) (map[string]int64, error) {
	latest, _, err := latestRuns(path)
	return latest, err
}

// latestRuns is LatestRuns that also counts the non-blank lines.
func latestRuns(path string) (map[string]int64, int, error) {
	latest := make(map[string]int64)
	lines := 0
	err := scanFile(path, func(l line) error {
		var id runID
		if err := l.decode(&id); err != nil {
			return err
		}
		if id.RunID == "" {
			return l.errorf("missing run_id")
		}
		latest[id.RunID] = l.offset
		lines++
		return nil
	})
	if err != nil {
		return nil, 0, err
	}
	return latest, lines, nil
}

// runID decodes only the identity of a line.
type runID struct {
	RunID string `json:"run_id"`
}

// ReadStats describes one ReadLatestRuns pass.
type ReadStats struct {
	// Lines is the number of non-blank lines in the file.
	Lines int
	// Runs is the number of distinct run ids, each passed to fn once.
	Runs int
	// Superseded counts lines replaced by a later line for the same run id.
	Superseded int
}

// ReadLatestRuns calls fn once per run_id with the run's last line, in the
// file order of those lines. It reads the file twice: once to index the last
// offset of each run_id (see LatestRuns), then to decode only those lines.
// Memory holds one id and offset per run, never the runs themselves. Lines
// appended to the file between the two passes are ignored.
func ReadLatestRuns(path string, fn func(Run) error) (ReadStats, error) {
	latest, lines, err := latestRuns(path)
	if err != nil {
		return ReadStats{}, err
	}
	keep := make([]int64, 0, len(latest))
	for _, off := range latest {
		keep = append(keep, off)
	}
	clear(latest)
	slices.Sort(keep)
	st := ReadStats{Lines: lines, Runs: len(keep), Superseded: lines - len(keep)}

	next := 0
	err = scanFile(path, func(l line) error {
		if next >= len(keep) {
			return errStop
		}
		if l.offset != keep[next] {
			return nil
		}
		next++
		var r Run
		if err := l.decode(&r); err != nil {
			return err
		}
		return fn(r)
	})
	if errors.Is(err, errStop) {
		err = nil
	}
	if err == nil && next < len(keep) {
		err = fmt.Errorf("read %s: file changed between passes", filepath.Base(path))
	}
	return st, err
}

// errStop ends a scan early without an error.
var errStop = errors.New("stop")

// line is one non-blank line of a JSON-lines file.
type line struct {
	name   string // file name for messages
	num    int    // 1-based line number
	offset int64  // byte offset of the line's first byte
	data   []byte // without the trailing newline; valid during the callback only
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
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("open runs: %w", err)
	}
	defer f.Close()
	return scanLines(f, filepath.Base(path), fn)
}

// scanLines calls fn for each non-blank line read from r. Lines of any length
// are accepted: bufio.Reader grows its result as needed.
func scanLines(r io.Reader, name string, fn func(line) error) error {
	br := bufio.NewReaderSize(r, 64<<10)
	var off int64
	for num := 1; ; num++ {
		data, err := br.ReadBytes('\n')
		if len(data) > 0 {
			start := off
			off += int64(len(data))
			trimmed := bytes.TrimSpace(data)
			if len(trimmed) > 0 {
				if ferr := fn(line{name: name, num: num, offset: start, data: trimmed}); ferr != nil {
					return ferr
				}
			}
		}
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("%s:%d: read: %w", name, num, err)
		}
	}
}
