package results

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/killchain/killchain/internal/rooted"
)

// File names inside a study folder.
const (
	RunsFile     = "runs.jsonl"
	EventsFile   = "events.jsonl"
	ManifestFile = "manifest.json"
	StudyFile    = "study.hcl"
	// AttemptsFile keeps the run lines Compact took out of runs.jsonl:
	// errored tries and lines a later try superseded. Nothing recorded is lost.
	AttemptsFile   = "attempts.jsonl"
	TranscriptsDir = "transcripts"
)

// Writer appends finished runs to a study folder. Each run's transcript,
// events and run line are written and synced before Write returns, so an
// interrupted study keeps every finished run. It is safe for concurrent use,
// but only one Writer (one process) may hold a folder at a time. Runs
// written at the same time share their fsyncs.
//
// The order of the writes is what makes a run's record atomic (see Write):
// a run counts as recorded only once its line is in runs.jsonl, and Open
// compacts the folder (see Compact) so that whatever a killed process left
// of an unrecorded run is gone before the run is written again.
type Writer struct {
	dir       string
	root      *rooted.Dir
	runs      *syncedLog
	events    *syncedLog
	compacted CompactStats
}

// Open opens (or creates) the study folder for appending. It first compacts
// the folder (see Compact): afterwards runs.jsonl holds one finished,
// error-free line per run id and events.jsonl only those runs' events, each
// once. A caller resuming a study runs again every run without a line.
func Open(dir string) (*Writer, error) {
	root, err := rooted.Open(dir)
	if err != nil {
		return nil, fmt.Errorf("open results: %w", err)
	}
	w, err := open(root)
	if err != nil {
		root.Close()
		return nil, err
	}
	return w, nil
}

func open(root *rooted.Dir) (*Writer, error) {
	if _, err := root.MkdirAll(TranscriptsDir); err != nil {
		return nil, fmt.Errorf("open results: %w", err)
	}
	st, err := compact(root)
	if err != nil {
		return nil, fmt.Errorf("open results: %w", err)
	}
	runs, err := openAppend(root, RunsFile)
	if err != nil {
		return nil, err
	}
	events, err := openAppend(root, EventsFile)
	if err != nil {
		runs.Close()
		return nil, err
	}
	return &Writer{dir: root.Path(), root: root, compacted: st, runs: newSyncedLog(runs), events: newSyncedLog(events)}, nil
}

// Compacted reports what Open's compaction changed in the folder.
func (w *Writer) Compacted() CompactStats { return w.compacted }

func openAppend(root *rooted.Dir, name string) (*os.File, error) {
	if err := dropPartialLine(root, name); err != nil {
		return nil, fmt.Errorf("open results: %w", err)
	}
	f, err := root.OpenAppend(name)
	if err != nil {
		return nil, fmt.Errorf("open results: %w", err)
	}
	return f, nil
}

// Dir is the study folder.
func (w *Writer) Dir() string { return w.dir }

// Write records one finished run: its transcript (any JSON value), its
// events (each marshalled to one line) and finally its run line, which also
// counts the events (Run.Events).
//
// Crash order: the transcript is renamed into place, then the events are
// appended and synced, then the run line is appended and synced. A process
// killed before the run line is complete leaves at most a transcript (the
// rerun replaces it), events without a run line (orphans) and a partial last
// line; Open drops all of them (see Compact) before the run is written
// again. Once the run line is on disk, so is everything before it.
func Write[E any](w *Writer, run Run, events []E, transcript any) error {
	// The transcript is written and synced while the events are appended:
	// both are on disk before the run's line, which is what makes the run
	// recorded, so the crash order is kept with one fsync fewer on the
	// run's path.
	transcriptDone := func() error { return nil }
	if transcript != nil {
		data, err := json.MarshalIndent(transcript, "", "  ")
		if err != nil {
			return fmt.Errorf("transcript %s: %w", run.RunID, err)
		}
		done := make(chan error, 1)
		go func() { done <- writeFileAtomic(w.root, filepath.Join(TranscriptsDir, run.RunID+".json"), data) }()
		transcriptDone = func() error {
			if err := <-done; err != nil {
				return fmt.Errorf("transcript %s: %w", run.RunID, err)
			}
			return nil
		}
	}
	var ev []byte
	for _, e := range events {
		line, err := json.Marshal(e)
		if err != nil {
			return errors.Join(fmt.Errorf("events %s: %w", run.RunID, err), transcriptDone())
		}
		ev = append(append(ev, line...), '\n')
	}
	n := len(events)
	run.Events = &n
	line, err := json.Marshal(run)
	if err != nil {
		return errors.Join(fmt.Errorf("run %s: %w", run.RunID, err), transcriptDone())
	}
	// Each append returns once it is on disk; runs finishing together
	// share their fsyncs (see syncedLog).
	if len(ev) > 0 {
		if err := w.events.Append(ev); err != nil {
			return errors.Join(fmt.Errorf("events %s: %w", run.RunID, err), transcriptDone())
		}
	}
	if err := transcriptDone(); err != nil {
		return err
	}
	if err := w.runs.Append(append(line, '\n')); err != nil {
		return fmt.Errorf("run %s: %w", run.RunID, err)
	}
	return nil
}

// WriteJSON writes a JSON file (such as manifest.json) into the folder.
func (w *Writer) WriteJSON(name string, v any) error { return writeJSON(w.root, name, v) }

// WriteJSON writes v as indented JSON to dir/name, atomically: a reader (or
// a process resuming after a crash) sees the old file or the new one. Like
// every write into a study folder it goes through package rooted: a link
// in the folder is refused, never followed.
func WriteJSON(dir, name string, v any) error {
	return withRoot(dir, func(root *rooted.Dir) error { return writeJSON(root, name, v) })
}

func writeJSON(root *rooted.Dir, name string, v any) error {
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	if err := writeFileAtomic(root, name, append(data, '\n')); err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	return nil
}

// WriteFile writes data to dir/name atomically (see WriteJSON), creating
// the folders of name.
func WriteFile(dir, name string, data []byte) error {
	return withRoot(dir, func(root *rooted.Dir) error {
		if err := writeFileAtomic(root, name, data); err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		return nil
	})
}

// withRoot calls fn with the folder dir opened; dir must exist.
func withRoot(dir string, fn func(*rooted.Dir) error) error {
	root, err := rooted.OpenExisting(dir)
	if err != nil {
		return err
	}
	defer root.Close()
	return fn(root)
}

// writeFileAtomic writes a temporary file beside name, syncs it and
// renames it over name.
func writeFileAtomic(root *rooted.Dir, name string, data []byte) error {
	f, err := root.Create(name)
	if err != nil {
		return err
	}
	defer f.Close()
	if _, err := f.Write(data); err != nil {
		return err
	}
	if err := f.Sync(); err != nil {
		return err
	}
	return f.Commit()
}

// tmpSuffix marks a file being written; one left by a killed process is
// never read and is removed by Compact.
const tmpSuffix = rooted.TempSuffix

// Close closes the files.
func (w *Writer) Close() error {
	return errors.Join(w.runs.Close(), w.events.Close(), w.root.Close())
}

// Repair drops the partial last line a killed process may have left in a
// study folder's runs.jsonl, events.jsonl and attempts.jsonl. Compact
// repairs and does more.
func Repair(dir string) error {
	return withRoot(dir, repair)
}

func repair(root *rooted.Dir) error {
	for _, name := range []string{RunsFile, EventsFile, AttemptsFile} {
		if err := dropPartialLine(root, name); err != nil {
			return fmt.Errorf("repair %s: %w", name, err)
		}
	}
	return nil
}

// dropPartialLine cuts a final line that lacks its newline: what a process
// killed in the middle of a write leaves. That run was not finished, so
// --resume runs it again.
func dropPartialLine(root *rooted.Dir, name string) error {
	f, err := root.OpenFile(name, os.O_RDWR, 0)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || fi.Size() == 0 {
		return err
	}
	size := fi.Size()
	buf := make([]byte, 64<<10)
	end := size
	for end > 0 {
		n := int64(len(buf))
		if n > end {
			n = end
		}
		if _, err := f.ReadAt(buf[:n], end-n); err != nil {
			return err
		}
		if i := bytes.LastIndexByte(buf[:n], '\n'); i >= 0 {
			cut := end - n + int64(i) + 1
			if cut == size {
				return nil
			}
			return f.Truncate(cut)
		}
		end -= n
	}
	return f.Truncate(0)
}
