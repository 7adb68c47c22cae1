package runner_test

// The golden test runs hcl/smoke.hcl with the scripted reference agents on
// the local backend and compares runs.jsonl (run-specific values masked) and
// the report's tables with testdata/smoke, so that a refactor of how results
// are read or computed shows that the behaviour did not change. Rewrite the
// files with
//
//	go test ./runner -run TestSmokeGolden -update

import (
	"bytes"
	"context"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/killchain/killchain/internal/agent"
	"github.com/killchain/killchain/internal/models/scripted"
	"github.com/killchain/killchain/internal/report"
	"github.com/killchain/killchain/internal/results"
	"github.com/killchain/killchain/internal/study"
	"github.com/killchain/killchain/internal/testenv"
	"github.com/killchain/killchain/runner"
	"github.com/killchain/killchain/sandbox"
	"github.com/killchain/killchain/sandbox/local"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// studyFile is the study the golden files pin.
const studyFile = "../hcl/smoke.hcl"

// goldenDir holds runs.jsonl (masked, sorted by run id) and report/.
var goldenDir = filepath.Join("testdata", "smoke")

// TestSmokeGolden runs the smoke study on the local backend, without the
// tasks the backend cannot run (audio), and compares its runs.jsonl and
// its report's Markdown and CSV tables with the golden files. Figures and
// the HTML page are left out: their bytes depend on the plotting library.
func TestSmokeGolden(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a study (about 10 s)")
	}
	dir := runSmoke(t)

	raw, err := os.ReadFile(filepath.Join(dir, results.RunsFile))
	if err != nil {
		t.Fatal(err)
	}
	compare(t, results.RunsFile, maskRuns(t, raw))

	if err := report.Write(dir, report.Options{NoFigures: true, NoHTML: true}); err != nil {
		t.Fatal(err)
	}
	got := reportFiles(t, filepath.Join(dir, "report"))
	want := reportFiles(t, filepath.Join(goldenDir, "report"))
	if *update {
		if err := os.RemoveAll(filepath.Join(goldenDir, "report")); err != nil {
			t.Fatal(err)
		}
	} else if !slices.Equal(got, want) {
		t.Errorf("report files = %v, golden has %v", got, want)
	}
	for _, name := range got {
		data, err := os.ReadFile(filepath.Join(dir, "report", name))
		if err != nil {
			t.Fatal(err)
		}
		compare(t, filepath.Join("report", name), data)
	}
}

// runSmoke runs the study into a temporary folder and returns it.
func runSmoke(t *testing.T) string {
	t.Helper()
	s, diags := study.Load(studyFile)
	if diags.HasErrors() {
		t.Fatalf("load %s: %v", studyFile, diags)
	}
	be := &local.Backend{Root: testenv.SharedDir(t), AllowHostShell: true}
	sel := &study.Selection{Tasks: runnable(s, sandbox.CapabilitiesOf(be))}
	out := filepath.Join(t.TempDir(), "smoke")
	r, err := runner.New(s, runner.Options{Output: out, Backend: be, Selection: sel,
		Models: func(m *study.Model) (agent.Model, error) { return scripted.New(m.Policy) }})
	if err != nil {
		t.Fatal(err)
	}
	sum, err := r.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if sum.Ran != sum.Selected || sum.Errors != 0 {
		t.Fatalf("ran %d of %d selected runs, %d errors", sum.Ran, sum.Selected, sum.Errors)
	}
	return out
}

// runnable lists the study's tasks that need nothing outside have.
func runnable(s *study.Study, have []sandbox.Capability) []string {
	var out []string
	for _, g := range s.Grids {
		for _, name := range g.Tasks {
			tk, ok := s.Tasks.Get(name)
			if ok && len(sandbox.Missing(tk.Needs(), have)) == 0 && !slices.Contains(out, name) {
				out = append(out, name)
			}
		}
	}
	slices.Sort(out)
	return out
}

var (
	// canaryRe matches a canary as the tracker issues it.
	canaryRe = regexp.MustCompile(`SECRET-[0-9A-F]{8}`)
	// startedRe and durationRe match the timing fields of a run line and of
	// its attempt errors.
	startedRe  = regexp.MustCompile(`"started":"[^"]*"`)
	durationRe = regexp.MustCompile(`"duration_ms":[0-9]+`)
	runIDRe    = regexp.MustCompile(`"run_id":"([^"]*)"`)
)

// maskRuns replaces each line's canaries and timings with fixed values and
// sorts the lines by run id (runs finish in any order); everything else,
// field order and number formatting included, is kept byte for byte.
func maskRuns(t *testing.T, raw []byte) []byte {
	t.Helper()
	type line struct{ id, text string }
	var lines []line
	for l := range strings.Lines(string(raw)) {
		l = strings.TrimSpace(l)
		if l == "" {
			continue
		}
		m := runIDRe.FindStringSubmatch(l)
		if m == nil {
			t.Fatalf("runs.jsonl: a line without run_id: %.80s", l)
		}
		l = canaryRe.ReplaceAllString(l, "SECRET-00000000")
		l = startedRe.ReplaceAllString(l, `"started":""`)
		l = durationRe.ReplaceAllString(l, `"duration_ms":0`)
		lines = append(lines, line{m[1], l})
	}
	slices.SortStableFunc(lines, func(a, b line) int { return strings.Compare(a.id, b.id) })
	var b bytes.Buffer
	for _, l := range lines {
		b.WriteString(l.text)
		b.WriteByte('\n')
	}
	return b.Bytes()
}

// reportFiles lists the Markdown and CSV files of a report folder.
func reportFiles(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil && !(*update && os.IsNotExist(err)) {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		if ext := filepath.Ext(e.Name()); ext == ".md" || ext == ".csv" {
			names = append(names, e.Name())
		}
	}
	return names
}

// compare checks got against the golden file name under goldenDir, or
// writes it with -update.
func compare(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join(goldenDir, name)
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./runner -run TestSmokeGolden -update)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from %s:\n%s", name, path, firstDiff(want, got))
	}
}

// firstDiff shows the first line that differs.
func firstDiff(want, got []byte) string {
	wl, gl := strings.Split(string(want), "\n"), strings.Split(string(got), "\n")
	for i := range max(len(wl), len(gl)) {
		var w, g string
		if i < len(wl) {
			w = wl[i]
		}
		if i < len(gl) {
			g = gl[i]
		}
		if w != g {
			return "line " + strconv.Itoa(i+1) + ":\n- " + w + "\n+ " + g
		}
	}
	return "(same lines)"
}
