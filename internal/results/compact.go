package results

import (
	"bufio"
	"crypto/sha256"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/killchain/killchain/internal/rooted"
)

// CompactStats says what Compact changed in a study folder.
type CompactStats struct {
	// Runs is the number of run lines kept in runs.jsonl: one per run id.
	Runs int
	// Moved counts run lines moved to attempts.jsonl: lines a later line
	// for the same run id superseded (an errored try that a resume ran
	// again, a finished line written again).
	Moved int
	// Orphans counts events dropped because their run has no kept line: the
	// run was killed (or failed) before its line was written, or it errored.
	Orphans int
	// Duplicates counts events dropped as older copies of a kept run's
	// events (a run line counts its events; only the last that many stay).
	Duplicates int
	// Short counts kept runs with fewer events than their line counts.
	// Nothing can restore them; the reader is told.
	Short int
}

// Changed reports whether Compact rewrote runs.jsonl or events.jsonl.
func (s CompactStats) Changed() bool { return s.Moved+s.Orphans+s.Duplicates > 0 }

// Compact restores a study folder's invariant after a crash or a resume:
//
//   - runs.jsonl holds, for each run id, only its last line, errored or
//     not; every line a later one superseded (an errored try that a resume
//     ran again) is appended to attempts.jsonl, so nothing recorded is
//     lost. An errored line stays in runs.jsonl until a later line for its
//     run replaces it: every reader sees it, and a resume decides which
//     errored runs to run again (a subset's resume leaves the runs outside
//     it as they are);
//   - events.jsonl holds only the events of runs kept in runs.jsonl, each
//     once: orphans (events of a run whose line never came) are dropped, and
//     of a kept run only its last Run.Events events stay;
//   - partial last lines and temporary files a killed process left are gone.
//
// Crash safety: runs.jsonl and events.jsonl are rewritten to temporary
// files that are synced and renamed into place, after the moved lines are
// appended and synced to attempts.jsonl. A line already in attempts.jsonl is
// not appended again. The result depends only on runs.jsonl's kept lines,
// which compacting does not change, so Compact is idempotent: killed at any
// point, the next Compact finishes the job and reaches the same folder.
// When nothing is to change, no file is rewritten.
//
// Compact must not run while a Writer holds the folder; Open calls it.
func Compact(dir string) (CompactStats, error) {
	var st CompactStats
	err := withRoot(dir, func(root *rooted.Dir) (err error) {
		st, err = compact(root)
		return err
	})
	return st, err
}

// compact is Compact on an open folder: every file it changes, it changes
// through root.
func compact(root *rooted.Dir) (CompactStats, error) {
	var st CompactStats
	if err := removeTemps(root); err != nil {
		return st, fmt.Errorf("compact: %w", err)
	}
	if err := repair(root); err != nil {
		return st, fmt.Errorf("compact: %w", err)
	}
	runsPath := root.Join(RunsFile)
	idx, err := indexRuns(runsPath)
	if err != nil {
		return st, fmt.Errorf("compact: %w", err)
	}
	st.Runs, st.Moved = len(idx.keep), idx.lines-len(idx.keep)

	eventsPath := root.Join(EventsFile)
	skip, err := countEvents(eventsPath, idx, &st)
	if err != nil {
		return st, fmt.Errorf("compact: %w", err)
	}
	if st.Moved > 0 {
		if err := moveRuns(root, idx); err != nil {
			return st, fmt.Errorf("compact: %w", err)
		}
	}
	if st.Orphans+st.Duplicates > 0 {
		if err := rewriteEvents(root, EventsFile, idx, skip); err != nil {
			return st, fmt.Errorf("compact: %w", err)
		}
	}
	if st.Changed() {
		if err := root.Sync("."); err != nil {
			return st, fmt.Errorf("compact: %w", err)
		}
	}
	return st, nil
}

// runIndex locates, for each run id, its kept line in runs.jsonl.
type runIndex struct {
	keep  map[string]keptLine
	lines int // non-blank lines in the file
}

// keptLine is a run's last line.
type keptLine struct {
	off    int64
	events *int // Run.Events of that line; nil when it does not count them
}

// indexRuns finds each run id's last line.
func indexRuns(path string) (runIndex, error) {
	idx := runIndex{keep: map[string]keptLine{}}
	if !exists(path) {
		return idx, nil
	}
	err := scanFile(path, func(l line) error {
		var r struct {
			RunID  string `json:"run_id"`
			Events *int   `json:"events"`
		}
		if err := l.decode(&r); err != nil {
			return err
		}
		if r.RunID == "" {
			return l.errorf("missing run_id")
		}
		idx.lines++
		idx.keep[r.RunID] = keptLine{off: l.offset, events: r.Events}
		return nil
	})
	return idx, err
}

// countEvents counts the events of each kept run and fills the orphan,
// duplicate and short counts. It returns, per run id, how many of the run's
// first events are older copies to drop.
func countEvents(path string, idx runIndex, st *CompactStats) (map[string]int, error) {
	if !exists(path) {
		return nil, nil
	}
	count := map[string]int{}
	err := scanFile(path, func(l line) error {
		id, err := runID(l.data)
		if err != nil {
			return l.errorf("%w", err)
		}
		if _, ok := idx.keep[string(id)]; !ok {
			st.Orphans++
			return nil
		}
		count[string(id)]++
		return nil
	})
	if err != nil {
		return nil, err
	}
	skip := map[string]int{}
	for id, k := range idx.keep {
		if k.events == nil {
			continue // a line from before runs counted their events: keep all
		}
		switch n := count[id]; {
		case n > *k.events:
			skip[id] = n - *k.events
			st.Duplicates += n - *k.events
		case n < *k.events:
			st.Short++
		}
	}
	return skip, nil
}

// moveRuns appends the lines that are not kept to attempts.jsonl (skipping
// lines it already holds), then replaces runs.jsonl by its kept lines.
func moveRuns(root *rooted.Dir, idx runIndex) error {
	runsPath := root.Join(RunsFile)
	attemptsPath := root.Join(AttemptsFile)
	have := map[[sha256.Size]byte]bool{}
	if exists(attemptsPath) {
		if err := scanFile(attemptsPath, func(l line) error {
			have[sha256.Sum256(l.data)] = true
			return nil
		}); err != nil {
			return err
		}
	}
	var moved [][]byte
	out, err := newTempLines(root, RunsFile)
	if err != nil {
		return err
	}
	defer out.abort()
	err = scanFile(runsPath, func(l line) error {
		id, err := runID(l.data)
		if err != nil {
			return l.errorf("%w", err)
		}
		if k, ok := idx.keep[string(id)]; ok && k.off == l.offset {
			return out.line(l.data)
		}
		if sum := sha256.Sum256(l.data); !have[sum] {
			have[sum] = true
			moved = append(moved, append([]byte(nil), l.data...))
		}
		return nil
	})
	if err != nil {
		return err
	}
	// The moved lines reach attempts.jsonl before runs.jsonl loses them.
	if err := appendLines(root, AttemptsFile, moved); err != nil {
		return fmt.Errorf("%s: %w", AttemptsFile, err)
	}
	return out.commit()
}

// rewriteEvents replaces events.jsonl by the events of kept runs, dropping
// the first skip[id] events of each run.
func rewriteEvents(root *rooted.Dir, name string, idx runIndex, skip map[string]int) error {
	path := root.Join(name)
	out, err := newTempLines(root, name)
	if err != nil {
		return err
	}
	defer out.abort()
	err = scanFile(path, func(l line) error {
		id, err := runID(l.data)
		if err != nil {
			return l.errorf("%w", err)
		}
		if _, ok := idx.keep[string(id)]; !ok {
			return nil
		}
		if skip[string(id)] > 0 {
			skip[string(id)]--
			return nil
		}
		return out.line(l.data)
	})
	if err != nil {
		return err
	}
	return out.commit()
}

// tempLines writes a JSON-lines file beside the one it replaces.
type tempLines struct {
	f  *rooted.File
	bw *bufio.Writer
}

func newTempLines(root *rooted.Dir, name string) (*tempLines, error) {
	f, err := root.Create(name)
	if err != nil {
		return nil, err
	}
	return &tempLines{f: f, bw: bufio.NewWriterSize(f, 256<<10)}, nil
}

func (t *tempLines) line(data []byte) error {
	t.bw.Write(data)
	return t.bw.WriteByte('\n')
}

// commit syncs the temporary file and renames it over the original.
func (t *tempLines) commit() error {
	err := t.bw.Flush()
	if err == nil {
		err = t.f.Sync()
	}
	if err != nil {
		return err
	}
	return t.f.Commit()
}

// abort removes the temporary file unless it was committed.
func (t *tempLines) abort() { t.f.Close() }

// appendLines appends lines to the file name and syncs it.
func appendLines(root *rooted.Dir, name string, lines [][]byte) error {
	if len(lines) == 0 {
		return nil
	}
	f, err := root.OpenAppend(name)
	if err != nil {
		return err
	}
	bw := bufio.NewWriter(f)
	for _, l := range lines {
		bw.Write(l)
		bw.WriteByte('\n')
	}
	err = bw.Flush()
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// removeTemps removes the temporary files a killed process left in the
// folder and its transcripts.
func removeTemps(root *rooted.Dir) error {
	for _, d := range []string{".", TranscriptsDir} {
		ents, err := root.ReadDir(d)
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			return err
		}
		for _, e := range ents {
			if e.Type().IsRegular() && strings.HasSuffix(e.Name(), tmpSuffix) {
				if err := root.Remove(filepath.Join(d, e.Name())); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

func exists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// ReadAttempts streams attempts.jsonl (see AttemptsFile) as ReadRuns does;
// a folder without one has no attempts.
func ReadAttempts(dir string, fn func(Run) error) error {
	p := filepath.Join(dir, AttemptsFile)
	if !exists(p) {
		return nil
	}
	return ReadRuns(p, fn)
}
