package results

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// folder is the content of a study folder's three JSON-lines files.
type folder struct {
	runs, events, attempts string
}

func (f folder) write(t *testing.T, dir string) {
	t.Helper()
	for name, content := range map[string]string{RunsFile: f.runs, EventsFile: f.events, AttemptsFile: f.attempts} {
		p := filepath.Join(dir, name)
		if content == "" {
			os.Remove(p)
			continue
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func readFolder(t *testing.T, dir string) folder {
	t.Helper()
	read := func(name string) string {
		data, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
		return string(data)
	}
	return folder{runs: read(RunsFile), events: read(EventsFile), attempts: read(AttemptsFile)}
}

func lines(ls ...string) string {
	if len(ls) == 0 {
		return ""
	}
	return strings.Join(ls, "\n") + "\n"
}

// Run and event lines as Compact sees them.
const (
	aOK     = `{"run_id":"a","error":"","events":2}`
	aErr    = `{"run_id":"a","error":"provider said 503","events":0}`
	bOK     = `{"run_id":"b","error":"","events":1}`
	bErr    = `{"run_id":"b","error":"sandbox died","events":0}`
	cLegacy = `{"run_id":"c","error":""}`
	a1      = `{"run_id":"a","n":1}`
	a2      = `{"run_id":"a","n":2}`
	aOld    = `{"run_id":"a","n":0}`
	b1      = `{"run_id":"b","n":1}`
	c1      = `{"run_id":"c","n":1}`
	x1      = `{"run_id":"x","n":1}`
)

func TestCompact(t *testing.T) {
	tests := []struct {
		name string
		in   folder
		want folder
		st   CompactStats
	}{
		{
			name: "clean folder is left alone",
			in:   folder{runs: lines(aOK, bOK), events: lines(a1, a2, b1)},
			want: folder{runs: lines(aOK, bOK), events: lines(a1, a2, b1)},
			st:   CompactStats{Runs: 2},
		},
		{
			name: "empty folder",
			st:   CompactStats{},
		},
		{
			name: "orphan events of a run killed before its line are dropped",
			in:   folder{runs: lines(aOK), events: lines(a1, a2, b1)},
			want: folder{runs: lines(aOK), events: lines(a1, a2)},
			st:   CompactStats{Runs: 1, Orphans: 1},
		},
		{
			name: "partial last lines are dropped",
			in:   folder{runs: lines(aOK) + bOK[:9], events: lines(a1, a2) + b1[:5]},
			want: folder{runs: lines(aOK), events: lines(a1, a2)},
			st:   CompactStats{Runs: 1},
		},
		{
			name: "an errored run stays until a later line replaces it (issue 19)",
			in:   folder{runs: lines(aOK, bErr), events: lines(a1, a2)},
			want: folder{runs: lines(aOK, bErr), events: lines(a1, a2)},
			st:   CompactStats{Runs: 2},
		},
		{
			name: "a rerun after an error keeps each run's last line",
			in:   folder{runs: lines(bErr, aErr, aOK, bErr), events: lines(a1, a2)},
			want: folder{runs: lines(aOK, bErr), events: lines(a1, a2), attempts: lines(bErr, aErr)},
			st:   CompactStats{Runs: 2, Moved: 2},
		},
		{
			name: "an errored run a resume ran again moves to attempts",
			in:   folder{runs: lines(bErr, aOK, bOK), events: lines(a1, a2, b1)},
			want: folder{runs: lines(aOK, bOK), events: lines(a1, a2, b1), attempts: lines(bErr)},
			st:   CompactStats{Runs: 2, Moved: 1},
		},
		{
			name: "older copies of a kept run's events are dropped",
			in:   folder{runs: lines(aOK), events: lines(aOld, aOld, a1, a2)},
			want: folder{runs: lines(aOK), events: lines(a1, a2)},
			st:   CompactStats{Runs: 1, Duplicates: 2},
		},
		{
			name: "a line that does not count its events keeps them all",
			in:   folder{runs: lines(cLegacy), events: lines(c1, c1)},
			want: folder{runs: lines(cLegacy), events: lines(c1, c1)},
			st:   CompactStats{Runs: 1},
		},
		{
			name: "a run short of events is reported",
			in:   folder{runs: lines(aOK), events: lines(a2)},
			want: folder{runs: lines(aOK), events: lines(a2)},
			st:   CompactStats{Runs: 1, Short: 1},
		},
		{
			name: "a line already in attempts is not appended again",
			in:   folder{runs: lines(bErr, aOK, bOK), events: lines(a1, a2, b1, x1), attempts: lines(bErr)},
			want: folder{runs: lines(aOK, bOK), events: lines(a1, a2, b1), attempts: lines(bErr)},
			st:   CompactStats{Runs: 2, Moved: 1, Orphans: 1},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			tt.in.write(t, dir)
			st, err := Compact(dir)
			if err != nil {
				t.Fatal(err)
			}
			if st != tt.st {
				t.Errorf("stats %+v, want %+v", st, tt.st)
			}
			if got := readFolder(t, dir); got != tt.want {
				t.Errorf("folder\n%+v\nwant\n%+v", got, tt.want)
			}
			again, err := Compact(dir)
			if err != nil {
				t.Fatal(err)
			}
			if again.Changed() || again.Short != tt.st.Short {
				t.Errorf("second compaction changed the folder: %+v", again)
			}
		})
	}
}

// TestCompactKilledMidway starts from the states a Compact killed between
// its steps leaves, and checks the next Compact reaches the same folder.
func TestCompactKilledMidway(t *testing.T) {
	before := folder{runs: lines(bErr, aOK, bOK), events: lines(x1, aOld, a1, a2, b1), attempts: lines(aErr)}
	want := folder{runs: lines(aOK, bOK), events: lines(a1, a2, b1), attempts: lines(aErr, bErr)}
	tests := []struct {
		name  string
		state folder
		temps map[string]string
	}{
		{"before any step", before, nil},
		{"attempts appended, nothing renamed", folder{runs: before.runs, events: before.events, attempts: want.attempts}, nil},
		{"attempts appended partly", folder{runs: before.runs, events: before.events, attempts: want.attempts[:len(want.attempts)-4]}, nil},
		{"runs renamed, events not", folder{runs: want.runs, events: before.events, attempts: want.attempts}, nil},
		{"temporary files written, not renamed", before, map[string]string{
			RunsFile + tmpSuffix: want.runs, EventsFile + tmpSuffix: want.events[:7],
			filepath.Join(TranscriptsDir, "a.json"+tmpSuffix): "{",
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			tt.state.write(t, dir)
			for name, content := range tt.temps {
				p := filepath.Join(dir, name)
				os.MkdirAll(filepath.Dir(p), 0o755)
				if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			if _, err := Compact(dir); err != nil {
				t.Fatal(err)
			}
			if got := readFolder(t, dir); got != want {
				t.Errorf("folder\n%+v\nwant\n%+v", got, want)
			}
			for name := range tt.temps {
				if _, err := os.Stat(filepath.Join(dir, name)); !os.IsNotExist(err) {
					t.Errorf("%s left behind", name)
				}
			}
		})
	}
}
