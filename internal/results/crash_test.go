package results

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"testing"
)

// testEvent is an events.jsonl line as these tests write them.
type testEvent struct {
	RunID string `json:"run_id"`
	Try   int    `json:"try"`
	Seq   int    `json:"seq"`
}

// testTry is one try of a run: its line, events and transcript.
type testTry struct {
	run        Run
	events     []testEvent
	transcript map[string]any
}

// crashPlan is the study of the crash tests: five runs, the third of which
// errors on its first try. A retry has other events than the first try, so
// the tests can tell which try a record comes from.
var crashPlan = []string{"r0", "r1", "r2", "r3", "r4"}

func crashTry(i, try int) testTry {
	id := crashPlan[i]
	r := Run{Study: "crash", RunID: id, Task: "memory_poison", Stage: "none", Canary: fmt.Sprintf("SECRET-%08X", try<<8|i)}
	n := i + try
	if try == 1 && i == 2 {
		r.Error, r.ErrorKind, n = "provider said 503", "provider", 0
	}
	var evs []testEvent
	for s := range n {
		evs = append(evs, testEvent{RunID: id, Try: try, Seq: s})
	}
	return testTry{run: r, events: evs, transcript: map[string]any{"run_id": id, "try": try}}
}

// op is one append a Writer makes, in order: a run's events, then its line.
type op struct {
	run  int
	file string
	data []byte
}

// recordOps writes every first try with a real Writer and returns the
// appends it made, in order.
func recordOps(t *testing.T) []op {
	t.Helper()
	dir := t.TempDir()
	w, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	var ops []op
	size := map[string]int{}
	for i := range crashPlan {
		tr := crashTry(i, 1)
		if err := Write(w, tr.run, tr.events, tr.transcript); err != nil {
			t.Fatal(err)
		}
		for _, name := range []string{EventsFile, RunsFile} {
			data, err := os.ReadFile(filepath.Join(dir, name))
			if err != nil {
				t.Fatal(err)
			}
			ops = append(ops, op{run: i, file: name, data: data[size[name]:]})
			size[name] = len(data)
		}
	}
	return ops
}

// crashAt lays into dir what a process killed after g bytes of ops leaves:
// a prefix of each file, and the transcripts of the runs it had started.
// It returns which runs have their whole line on disk.
func crashAt(t *testing.T, dir string, ops []op, g int) map[int]bool {
	t.Helper()
	if err := os.MkdirAll(filepath.Join(dir, TranscriptsDir), 0o755); err != nil {
		t.Fatal(err)
	}
	files := map[string][]byte{EventsFile: nil, RunsFile: nil}
	lined := map[int]bool{}
	for _, o := range ops {
		if g <= 0 {
			break
		}
		if o.file == EventsFile {
			tr := crashTry(o.run, 1)
			data, _ := json.Marshal(tr.transcript)
			if err := os.WriteFile(filepath.Join(dir, TranscriptsDir, tr.run.RunID+".json"), data, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		n := min(g, len(o.data))
		files[o.file] = append(files[o.file], o.data[:n]...)
		if o.file == RunsFile && n == len(o.data) {
			lined[o.run] = true
		}
		g -= n
	}
	for name, data := range files {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return lined
}

// crashOffsets are the kill points: every line boundary and the bytes
// either side of it, and every stride-th byte between.
func crashOffsets(ops []op, stride int) []int {
	total := 0
	var gs []int
	for _, o := range ops {
		for i, c := range o.data {
			if c == '\n' {
				gs = append(gs, total+i, total+i+1, total+i+2)
			}
		}
		total += len(o.data)
		gs = append(gs, total)
	}
	for g := 0; g <= total; g += stride {
		gs = append(gs, g)
	}
	slices.Sort(gs)
	gs = slices.Compact(gs)
	for len(gs) > 0 && gs[len(gs)-1] > total {
		gs = gs[:len(gs)-1]
	}
	return gs
}

// resume opens dir as a resumed study does, writes a second try of every
// run without a line or with an errored one (which stays in runs.jsonl
// until then), and compacts the folder as a study does when it ends.
func resume(t *testing.T, dir string) {
	t.Helper()
	w, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	done := map[string]bool{}
	lines := map[string]int{}
	if err := ReadRuns(filepath.Join(dir, RunsFile), func(r Run) error {
		lines[r.RunID]++
		done[r.RunID] = r.Error == ""
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	for id, n := range lines {
		if n != 1 {
			t.Errorf("runs.jsonl holds %d lines of %s after Open", n, id)
		}
	}
	for i, id := range crashPlan {
		if !done[id] {
			tr := crashTry(i, 2)
			if err := Write(w, tr.run, tr.events, tr.transcript); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := Compact(dir); err != nil {
		t.Fatal(err)
	}
}

// TestKilledAtAnyByteThenResumed kills a study's writer at every line
// boundary, the bytes either side of each and a sample between, resumes it, and checks that each run
// is recorded once, by the try that finished, with exactly that try's
// events and transcript; the errored first try is kept in attempts.jsonl.
func TestKilledAtAnyByteThenResumed(t *testing.T) {
	ops := recordOps(t)
	// Every byte inside a line leaves the same partial line: the boundaries
	// and the bytes either side of them are the kill points that differ, and
	// a sample of the bytes between shows they behave the same.
	stride := 97
	if testing.Short() {
		stride = 401
	}
	base := t.TempDir()
	gs := crashOffsets(ops, stride)
	t.Logf("%d kill points over %d bytes", len(gs), gs[len(gs)-1])
	for _, g := range gs {
		dir := filepath.Join(base, fmt.Sprint(g))
		lined := crashAt(t, dir, ops, g)
		resume(t, dir)
		if msg := checkExactlyOnce(t, dir, lined); msg != "" {
			t.Fatalf("killed after %d bytes: %s", g, msg)
		}
		w, err := Open(dir)
		if err != nil {
			t.Fatal(err)
		}
		w.Close()
		if st := w.Compacted(); st.Changed() || st.Short > 0 {
			t.Fatalf("killed after %d bytes: reopening the resumed folder compacted it again: %+v", g, st)
		}
	}
}

// checkExactlyOnce compares dir with what the runs' finishing tries wrote:
// the first try of the runs in lined that did not error, else the second.
func checkExactlyOnce(t *testing.T, dir string, lined map[int]bool) string {
	t.Helper()
	var wantEvents []testEvent
	wantRuns := map[string]string{}
	wantAttempts := 0
	for i, id := range crashPlan {
		tr := crashTry(i, 1)
		if !lined[i] || tr.run.Error != "" {
			if lined[i] {
				wantAttempts++
			}
			tr = crashTry(i, 2)
		}
		wantRuns[id] = tr.run.Canary
		wantEvents = append(wantEvents, tr.events...)
		data, err := os.ReadFile(filepath.Join(dir, TranscriptsDir, id+".json"))
		if err != nil {
			return err.Error()
		}
		var got map[string]any
		if err := json.Unmarshal(data, &got); err != nil || got["try"] != float64(tr.transcript["try"].(int)) {
			return fmt.Sprintf("transcript of %s is %s, want try %d", id, data, tr.transcript["try"])
		}
	}
	gotRuns := map[string]string{}
	n := 0
	if err := ReadRuns(filepath.Join(dir, RunsFile), func(r Run) error {
		n++
		gotRuns[r.RunID] = r.Canary
		return nil
	}); err != nil {
		return err.Error()
	}
	if n != len(crashPlan) || !reflect.DeepEqual(gotRuns, wantRuns) {
		return fmt.Sprintf("runs.jsonl holds %d lines %v, want one per run %v", n, gotRuns, wantRuns)
	}
	var gotEvents []testEvent
	if err := scanFile(filepath.Join(dir, EventsFile), func(l line) error {
		var e testEvent
		gotEvents = append(gotEvents, e)
		return l.decode(&gotEvents[len(gotEvents)-1])
	}); err != nil {
		return err.Error()
	}
	byRun := func(evs []testEvent) map[string][]testEvent {
		m := map[string][]testEvent{}
		for _, e := range evs {
			m[e.RunID] = append(m[e.RunID], e)
		}
		return m
	}
	if !reflect.DeepEqual(byRun(gotEvents), byRun(wantEvents)) {
		return fmt.Sprintf("events.jsonl holds %v, want %v", gotEvents, wantEvents)
	}
	attempts := 0
	if err := ReadAttempts(dir, func(r Run) error {
		attempts++
		if r.Error == "" {
			return fmt.Errorf("attempts.jsonl holds finished run %s", r.RunID)
		}
		return nil
	}); err != nil {
		return err.Error()
	}
	if attempts != wantAttempts {
		return fmt.Sprintf("attempts.jsonl holds %d lines, want %d", attempts, wantAttempts)
	}
	return ""
}
