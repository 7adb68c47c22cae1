package study

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// golden compares got with testdata/name, or rewrites it under -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("read golden file (run with -update to create it): %v", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("output differs from %s (run with -update after checking):\n--- got\n%s\n--- want\n%s", path, got, want)
	}
}

// diagLine matches the first line of every printed diagnostic.
var diagLine = regexp.MustCompile(`^testdata/[a-z_]+\.hcl:\d+:\d+: (error|warning): \S`)

func TestDiagnosticsGolden(t *testing.T) {
	cases := []struct {
		file       string
		wantErrors int
	}{
		{"syntax.hcl", 1},
		{"semantic.hcl", 21},
		{"no_study.hcl", 1},
		{"kubernetes.hcl", 4},
	}
	for _, c := range cases {
		t.Run(c.file, func(t *testing.T) {
			var buf bytes.Buffer
			path := filepath.Join("testdata", c.file)
			s, ok := LoadAndReport(path, &buf)
			if ok || s != nil {
				t.Fatalf("LoadAndReport(%s) accepted a broken study", path)
			}
			errors := 0
			for _, line := range strings.Split(buf.String(), "\n") {
				if line == "" || strings.HasPrefix(line, "    ") {
					continue
				}
				if !diagLine.MatchString(line) {
					t.Errorf("line without file:line:col: %q", line)
				}
				if strings.Contains(line, ": error: ") {
					errors++
				}
			}
			if errors != c.wantErrors {
				t.Errorf("%d errors reported, want %d:\n%s", errors, c.wantErrors, buf.String())
			}
			golden(t, strings.TrimSuffix(c.file, ".hcl")+".golden", buf.Bytes())
		})
	}
}

// TestValidate: the verdict goes to stdout, the problems to stderr.
func TestValidate(t *testing.T) {
	cases := []struct {
		path       string
		wantCode   int
		wantStdout string
		wantStderr string
	}{
		{"testdata/plan_small.hcl", 0, `testdata/plan_small.hcl: study "small" is valid: 1 grid, `, ""},
		{"testdata/semantic.hcl", 1, "testdata/semantic.hcl: not valid: ", "testdata/semantic.hcl:3:17: error: Invalid concurrency"},
		{"testdata/missing.hcl", 1, "testdata/missing.hcl: not valid: 1 error\n", "cannot read study file"},
	}
	for _, c := range cases {
		t.Run(c.path, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			if code := Validate(c.path, &stdout, &stderr); code != c.wantCode {
				t.Errorf("Validate = %d, want %d; output:\n%s%s", code, c.wantCode, stdout.String(), stderr.String())
			}
			if !strings.HasPrefix(stdout.String(), c.wantStdout) || strings.Count(stdout.String(), "\n") != 1 {
				t.Errorf("stdout %q, want one line starting %q", stdout.String(), c.wantStdout)
			}
			if !strings.Contains(stderr.String(), c.wantStderr) || (c.wantStderr == "") != (stderr.Len() == 0) {
				t.Errorf("stderr %q, want %q", stderr.String(), c.wantStderr)
			}
		})
	}
}

func TestWritePlanGolden(t *testing.T) {
	s, diags := Load("testdata/plan_small.hcl")
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	runs, err := s.Plan()
	if err != nil {
		t.Fatal(err)
	}
	for _, verbose := range []bool{false, true} {
		name := "plan_small.golden"
		if verbose {
			name = "plan_small_verbose.golden"
		}
		t.Run(name, func(t *testing.T) {
			var buf bytes.Buffer
			if err := WritePlan(&buf, runs, verbose); err != nil {
				t.Fatal(err)
			}
			golden(t, name, buf.Bytes())
		})
	}
}
