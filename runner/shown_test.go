package runner_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/killchain/killchain/internal/agent"
	"github.com/killchain/killchain/internal/models/scripted"
	"github.com/killchain/killchain/internal/results"
	"github.com/killchain/killchain/internal/study"
	"github.com/killchain/killchain/runner"
	"github.com/killchain/killchain/sandbox/local"
	"github.com/killchain/killchain/tasks"
)

// TestShownTaskRunsAsBuiltin saves what `tasks show memory_poison` prints
// (the built-in's file) as a study's own task file, and its self-contained
// form too, and runs each: the run lines are those of the built-in.
func TestShownTaskRunsAsBuiltin(t *testing.T) {
	const studySrc = `study "shown" {
  seed = 3
%s}
model "compliant" {
  provider = "scripted"
  policy   = "compliant"
}
model "resistant" {
  provider = "scripted"
  policy   = "resistant"
}
grid "g" {
  tasks      = ["memory_poison"]
  models     = ["compliant", "resistant"]
  conditions = ["plain", "hack"]
}
`
	builtin, _ := tasks.Builtin().Get("memory_poison")
	run := func(taskFile []byte) []byte {
		t.Helper()
		dir := t.TempDir()
		files := ""
		if taskFile != nil {
			if err := os.WriteFile(filepath.Join(dir, "memory_poison.hcl"), taskFile, 0o644); err != nil {
				t.Fatal(err)
			}
			files = "  task_files = [\"memory_poison.hcl\"]\n"
		}
		file := filepath.Join(dir, "study.hcl")
		if err := os.WriteFile(file, []byte(strings.Replace(studySrc, "%s", files, 1)), 0o644); err != nil {
			t.Fatal(err)
		}
		s, diags := study.Load(file)
		if diags.HasErrors() {
			t.Fatal(diags)
		}
		if taskFile != nil && len(s.Own) != 1 {
			t.Fatalf("the study runs %d tasks of its own", len(s.Own))
		}
		out := filepath.Join(dir, "out")
		r, err := runner.New(s, runner.Options{Output: out, Backend: &local.Backend{Root: t.TempDir()},
			Models: func(m *study.Model) (agent.Model, error) { return scripted.New(m.Policy) }})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := r.Run(t.Context()); err != nil {
			t.Fatal(err)
		}
		raw, err := os.ReadFile(filepath.Join(out, results.RunsFile))
		if err != nil {
			t.Fatal(err)
		}
		return maskRuns(t, raw)
	}
	want := run(nil)
	for name, file := range map[string][]byte{"as shown": builtin.Source.Text, "self-contained": tasks.Encode(builtin)} {
		t.Run(name, func(t *testing.T) {
			if got := run(file); !bytes.Equal(got, want) {
				t.Errorf("run lines differ from the built-in's:\n%s\n---\n%s", got, want)
			}
		})
	}
}
