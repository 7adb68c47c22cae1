package report

import (
	"bytes"
	"encoding/csv"
	"flag"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/killchain/killchain/internal/results"
	"github.com/killchain/killchain/internal/stats"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// fixtures are the study folders under testdata; each holds runs.jsonl and
// golden/ with the expected report (testdata/<name>/golden).
// smoke is the study `killchain run --sandbox local hcl/smoke.hcl` wrote
// (runs.jsonl and events.jsonl whole, a few transcripts); suite is the
// synthetic suite study of suiteFixtureRuns.
var fixtures = []string{"mixed", "simple", "smoke", "suite"}

// copyFixture copies a fixture's runs.jsonl, events.jsonl and transcripts
// (those it has) into a fresh study folder and returns the folder.
func copyFixture(t *testing.T, name string) string {
	t.Helper()
	dir := t.TempDir()
	src := filepath.Join("testdata", name)
	err := filepath.WalkDir(src, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, path)
		if d.IsDir() {
			if rel == "golden" {
				return filepath.SkipDir
			}
			return os.MkdirAll(filepath.Join(dir, rel), 0o755)
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dir, rel), data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

// writeFixture copies a fixture, runs Write on it and returns the folder.
func writeFixture(t *testing.T, name string) string {
	t.Helper()
	dir := copyFixture(t, name)
	if err := Write(dir, Options{}); err != nil {
		t.Fatal(err)
	}
	return dir
}

// textFiles lists the Markdown and CSV files of a report folder.
func textFiles(t *testing.T, dir string) []string {
	t.Helper()
	got, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range got {
		if ext := filepath.Ext(e.Name()); ext == ".md" || ext == ".csv" {
			names = append(names, e.Name())
		}
	}
	return names
}

func TestWriteGolden(t *testing.T) {
	for _, name := range fixtures {
		t.Run(name, func(t *testing.T) {
			dir := writeFixture(t, name)
			names := textFiles(t, filepath.Join(dir, "report"))
			golden := filepath.Join("testdata", name, "golden")
			if *update {
				if err := os.RemoveAll(golden); err != nil {
					t.Fatal(err)
				}
			} else if want := textFiles(t, golden); !slices.Equal(names, want) {
				t.Fatalf("files = %v, golden has %v", names, want)
			}
			for _, f := range names {
				data, err := os.ReadFile(filepath.Join(dir, "report", f))
				if err != nil {
					t.Fatal(err)
				}
				if *update {
					if err := os.MkdirAll(golden, 0o755); err != nil {
						t.Fatal(err)
					}
					if err := os.WriteFile(filepath.Join(golden, f), data, 0o644); err != nil {
						t.Fatal(err)
					}
					continue
				}
				wantData, err := os.ReadFile(filepath.Join(golden, f))
				if err != nil {
					t.Fatalf("%v (run go test ./report -update)", err)
				}
				if !bytes.Equal(data, wantData) {
					t.Errorf("%s differs from %s:\n%s", f, filepath.Join(golden, f), data)
				}
			}
		})
	}
}

// TestRenderOrderIndependent feeds the same runs in shuffled orders: the
// output must not change.
func TestRenderOrderIndependent(t *testing.T) {
	var runs []results.Run
	if _, err := results.ReadLatestRuns(filepath.Join("testdata", "mixed", "runs.jsonl"), func(r results.Run) error {
		runs = append(runs, r)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	render := func(runs []results.Run) map[string][]byte {
		a := NewAggregator(3) // small, so that the id lists must choose
		for _, r := range runs {
			a.Add(r)
		}
		files, err := Render(a, results.ReadStats{}, stats.Z95)
		if err != nil {
			t.Fatal(err)
		}
		return files
	}
	want := render(runs)
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range 20 {
		rng.Shuffle(len(runs), func(i, j int) { runs[i], runs[j] = runs[j], runs[i] })
		got := render(runs)
		for name := range want {
			if !bytes.Equal(got[name], want[name]) {
				t.Fatalf("shuffle %d: %s differs", i, name)
			}
		}
	}
}

func TestWriteErrors(t *testing.T) {
	tests := []struct {
		name    string
		runs    *string // nil: no runs.jsonl
		opts    Options
		wantErr string
	}{
		{name: "missing runs file", wantErr: "open runs"},
		{name: "malformed line", runs: ptr("{\"run_id\":\"a\"}\n{oops}\n"), wantErr: "runs.jsonl:2:"},
		{name: "negative z", runs: ptr("{\"run_id\":\"a\"}\n"), opts: Options{Z: -1}, wantErr: "negative"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			if tt.runs != nil {
				if err := os.WriteFile(filepath.Join(dir, "runs.jsonl"), []byte(*tt.runs), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			err := Write(dir, tt.opts)
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("err = %v, want it to contain %q", err, tt.wantErr)
			}
			if _, statErr := os.Stat(filepath.Join(dir, "report")); statErr == nil {
				t.Errorf("report folder written despite the error")
			}
		})
	}
}

func TestWriteOutDir(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "runs.jsonl"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "elsewhere")
	if err := Write(dir, Options{OutDir: out}); err != nil {
		t.Fatal(err)
	}
	md, err := os.ReadFile(filepath.Join(out, MarkdownFile))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(md), "(no runs)") {
		t.Errorf("empty study: report.md does not say so:\n%s", md)
	}
}

func ptr[T any](v T) *T { return &v }

// readCSV reads a CSV file into maps keyed by header.
func readCSV(t *testing.T, path string) []map[string]string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	var rows []map[string]string
	for _, rec := range recs[1:] {
		row := make(map[string]string)
		for i, h := range recs[0] {
			row[h] = rec[i]
		}
		rows = append(rows, row)
	}
	return rows
}

// csvRecords reads CSV records from f into maps keyed by header.
func csvRecords(t *testing.T, f *os.File) []map[string]string {
	t.Helper()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	var rows []map[string]string
	for _, rec := range recs[1:] {
		row := make(map[string]string)
		for i, h := range recs[0] {
			row[h] = rec[i]
		}
		rows = append(rows, row)
	}
	return rows
}
