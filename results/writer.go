package results

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
)

// File names inside a study folder.
const (
	RunsFile       = "runs.jsonl"
	EventsFile     = "events.jsonl"
	ManifestFile   = "manifest.json"
	StudyFile      = "study.hcl"
	TranscriptsDir = "transcripts"
)

// Writer appends finished runs to a study folder. Each run's transcript,
// events and run line are written and synced before Write returns, so an
// interrupted study keeps every finished run. It is safe for concurrent use.
type Writer struct {
	dir    string
	mu     sync.Mutex
	runs   *os.File
	events *os.File
}

// Open opens (or creates) the study folder for appending.
func Open(dir string) (*Writer, error) {
	if err := os.MkdirAll(filepath.Join(dir, TranscriptsDir), 0o755); err != nil {
		return nil, fmt.Errorf("open results: %w", err)
	}
	w := &Writer{dir: dir}
	var err error
	if w.runs, err = openAppend(filepath.Join(dir, RunsFile)); err != nil {
		return nil, err
	}
	if w.events, err = openAppend(filepath.Join(dir, EventsFile)); err != nil {
		w.runs.Close()
		return nil, err
	}
	return w, nil
}

func openAppend(p string) (*os.File, error) {
	if err := dropPartialLine(p); err != nil {
		return nil, fmt.Errorf("open results: %w", err)
	}
	f, err := os.OpenFile(p, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return nil, fmt.Errorf("open results: %w", err)
	}
	return f, nil
}

// Dir is the study folder.
func (w *Writer) Dir() string { return w.dir }

// Write records one finished run: its transcript (any JSON value), its
// events (each marshalled to one line) and finally its run line. The run
// line goes last so that a run counts as finished only once all is on disk.
func Write[E any](w *Writer, run Run, events []E, transcript any) error {
	if transcript != nil {
		data, err := json.MarshalIndent(transcript, "", "  ")
		if err != nil {
			return fmt.Errorf("transcript %s: %w", run.RunID, err)
		}
		if err := os.WriteFile(filepath.Join(w.dir, TranscriptsDir, run.RunID+".json"), data, 0o644); err != nil {
			return fmt.Errorf("transcript %s: %w", run.RunID, err)
		}
	}
	var ev []byte
	for _, e := range events {
		line, err := json.Marshal(e)
		if err != nil {
			return fmt.Errorf("events %s: %w", run.RunID, err)
		}
		ev = append(append(ev, line...), '\n')
	}
	line, err := json.Marshal(run)
	if err != nil {
		return fmt.Errorf("run %s: %w", run.RunID, err)
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if len(ev) > 0 {
		if _, err := w.events.Write(ev); err != nil {
			return fmt.Errorf("events %s: %w", run.RunID, err)
		}
		if err := w.events.Sync(); err != nil {
			return fmt.Errorf("events %s: %w", run.RunID, err)
		}
	}
	if _, err := w.runs.Write(append(line, '\n')); err != nil {
		return fmt.Errorf("run %s: %w", run.RunID, err)
	}
	if err := w.runs.Sync(); err != nil {
		return fmt.Errorf("run %s: %w", run.RunID, err)
	}
	return nil
}

// WriteJSON writes a JSON file (such as manifest.json) into the folder.
func (w *Writer) WriteJSON(name string, v any) error {
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	tmp := filepath.Join(w.dir, name+".tmp")
	if err := os.WriteFile(tmp, append(data, '\n'), 0o644); err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	return os.Rename(tmp, filepath.Join(w.dir, name))
}

// Close closes the files.
func (w *Writer) Close() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	err1 := w.runs.Close()
	err2 := w.events.Close()
	if err1 != nil {
		return err1
	}
	return err2
}

// Repair drops the partial last line a killed process may have left in a
// study folder's runs.jsonl and events.jsonl.
func Repair(dir string) error {
	for _, name := range []string{RunsFile, EventsFile} {
		if err := dropPartialLine(filepath.Join(dir, name)); err != nil {
			return fmt.Errorf("repair %s: %w", name, err)
		}
	}
	return nil
}

// dropPartialLine cuts a final line that lacks its newline: what a process
// killed in the middle of a write leaves. That run was not finished, so
// --resume runs it again.
func dropPartialLine(p string) error {
	f, err := os.OpenFile(p, os.O_RDWR, 0)
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
