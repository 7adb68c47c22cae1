package tasks_test

import (
	"bytes"
	"flag"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"

	"github.com/killchain/killchain/internal/study"
	"github.com/killchain/killchain/tasks"
)

var update = flag.Bool("update", false, "rewrite testdata/invalid.golden and testdata/suite.golden")

// parseFile decodes a task file from testdata with its folder as origin.
func parseFile(t *testing.T, path string) ([]*tasks.Task, hcl.Diagnostics, []byte) {
	t.Helper()
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	ts, diags := tasks.ParseFile(tasks.DirOrigin(filepath.Dir(path), path), src)
	return ts, diags, src
}

func TestDecodeValid(t *testing.T) {
	files, _ := filepath.Glob("testdata/valid/*.hcl")
	files = append(files, "starter/starter.hcl")
	user, _ := filepath.Glob("../runner/testdata/usertasks/tasks/*.hcl")
	files = append(files, user...)
	suites, _ := filepath.Glob("../hcl/suite/*.hcl")
	files = append(files, suites...)
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			ts, diags, _ := parseFile(t, f)
			if len(diags) > 0 || len(ts) == 0 {
				t.Fatalf("%d tasks, diagnostics:\n%v", len(ts), diags)
			}
		})
	}
}

// TestDecodeInvalid decodes every broken task file of testdata/invalid: each
// is refused with an error of the summary its first line names, at a
// file:line:col inside the file, and the messages are those of
// testdata/invalid.golden (go test ./tasks -run TestDecodeInvalid -update).
func TestDecodeInvalid(t *testing.T) {
	files, err := filepath.Glob("testdata/invalid/*.hcl")
	if err != nil || len(files) < 20 {
		t.Fatalf("%d invalid files (%v)", len(files), err)
	}
	var all bytes.Buffer
	for _, f := range files {
		t.Run(strings.TrimSuffix(filepath.Base(f), ".hcl"), func(t *testing.T) {
			ts, diags, src := parseFile(t, f)
			first, _, _ := strings.Cut(string(src), "\n")
			want := strings.TrimSpace(strings.TrimPrefix(first, "# want:"))
			if len(ts) != 0 || !diags.HasErrors() {
				t.Fatalf("decoded %d tasks with diagnostics %v, want a refusal", len(ts), diags)
			}
			found := false
			for _, d := range diags {
				if d.Severity != hcl.DiagError {
					continue
				}
				if d.Subject == nil || d.Subject.Filename != f || d.Subject.Start.Line < 2 {
					t.Errorf("error %q has no place in the file: %v", d.Summary, d.Subject)
				}
				found = found || d.Summary == want
			}
			if !found {
				t.Errorf("no %q error among %v", want, diags)
			}
			if err := study.WriteDiagnostics(&all, map[string]*hcl.File{f: {Bytes: src}}, diags); err != nil {
				t.Fatal(err)
			}
		})
	}
	golden := filepath.Join("testdata", "invalid.golden")
	if *update {
		if err := os.WriteFile(golden, all.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run go test ./tasks -run TestDecodeInvalid -update)", err)
	}
	if !bytes.Equal(all.Bytes(), want) {
		t.Errorf("diagnostics differ from %s; got:\n%s", golden, all.String())
	}
}

// TestBuiltinsDecodeClean decodes the embedded task files, each folder's
// files linked together as the built-ins are (a suite keeps its files in a
// folder of its own below tasks/builtin): no error and no warning, sixteen
// scenario tasks (four of them MCP tasks), and besides them the suites'
// user tasks.
func TestBuiltinsDecodeClean(t *testing.T) {
	var ts []*tasks.Task
	err := fs.WalkDir(os.DirFS("."), tasks.BuiltinDir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return err
		}
		own, diags := tasks.LoadFS(os.DirFS("."), p)
		if len(diags) > 0 {
			t.Errorf("%s: diagnostics:\n%v", p, diags)
		}
		ts = append(ts, own...)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	scenarios := 0
	for _, tk := range ts {
		if tk.Environment == nil {
			scenarios++
		}
	}
	if scenarios != 16 || len(tasks.Builtin().Names()) != len(ts) {
		t.Fatalf("%d built-in tasks, %d of them scenario tasks; the built-in set holds %d", len(ts), scenarios, len(tasks.Builtin().Names()))
	}
}

// TestBrokenExample decodes the broken copies of the example suite
// (hcl/suite/pocketbank.hcl) in testdata/suite: each is refused at the
// line of its one mistake, in the task file or the state file beside it,
// with the messages of testdata/suite.golden.
func TestBrokenExample(t *testing.T) {
	dirs, err := filepath.Glob("testdata/suite/*")
	if err != nil || len(dirs) != 3 {
		t.Fatalf("%d broken copies (%v)", len(dirs), err)
	}
	var all bytes.Buffer
	for _, dir := range dirs {
		t.Run(filepath.Base(dir), func(t *testing.T) {
			f := filepath.Join(dir, "pocketbank.hcl")
			_, diags, src := parseFile(t, f)
			errs := 0
			for _, d := range diags {
				if d.Severity != hcl.DiagError {
					continue
				}
				errs++
				if d.Subject == nil || !strings.HasPrefix(d.Subject.Filename, dir+"/") || d.Subject.Start.Line < 2 {
					t.Errorf("error %q is not at a line of the copy: %v", d.Summary, d.Subject)
				}
			}
			if errs != 1 {
				t.Errorf("%d errors, want the one mistake's:\n%v", errs, diags)
			}
			files := map[string]*hcl.File{f: {Bytes: src}}
			if y, err := os.ReadFile(filepath.Join(dir, "pocketbank.yaml")); err == nil {
				files[filepath.Join(dir, "pocketbank.yaml")] = &hcl.File{Bytes: y}
			}
			if err := study.WriteDiagnostics(&all, files, diags); err != nil {
				t.Fatal(err)
			}
		})
	}
	golden := filepath.Join("testdata", "suite.golden")
	if *update {
		if err := os.WriteFile(golden, all.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run go test ./tasks -run TestBrokenExample -update)", err)
	}
	if !bytes.Equal(all.Bytes(), want) {
		t.Errorf("diagnostics differ from %s; got:\n%s", golden, all.String())
	}
}
