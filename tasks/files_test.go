package tasks_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/killchain/killchain/tasks"
)

// secret is what a file outside the task's folder holds; no task text may
// ever carry it.
const secret = "OUTSIDE-ONLY: the contents of a file outside the task's folder"

// TestTaskReadsRefuseLinks: file(), a workspace file's source and a
// workspace or held_out dir read the task's folder through package
// rooted: a link there, to a file or a folder, in or out of the folder,
// is refused with a diagnostic naming it, and nothing outside reaches the
// task (its texts, task_defs/, a sandbox).
func TestTaskReadsRefuseLinks(t *testing.T) {
	tests := []struct {
		name    string
		fixture string            // the task file, copied with the folders beside it
		links   map[string]string // name in the task's folder → target ("OUT" is the outside folder)
		remove  string            // what the link replaces
	}{
		{"file() of a link outside", "links/notes_task.hcl", map[string]string{"notes/notes.txt": "OUT/secret.txt"}, "notes/notes.txt"},
		{"file() of a link inside", "links/notes_task.hcl", map[string]string{"notes/notes.txt": "../other.txt"}, "notes/notes.txt"},
		{"file() under a folder linked outside", "links/notes_task.hcl", map[string]string{"notes": "OUT"}, "notes"},
		{"a workspace source linked outside", "valid/reward_user.hcl", map[string]string{"reward_common/run_tests.sh": "OUT/secret.txt"}, "reward_common/run_tests.sh"},
		{"a workspace dir linked outside", "valid/reward_user.hcl", map[string]string{"reward_user": "OUT"}, "reward_user"},
		{"a link inside a workspace dir", "valid/reward_user.hcl", map[string]string{"reward_user/tests/leak.txt": "OUT/secret.txt"}, ""},
		{"a held_out dir linked outside", "valid/reward_user.hcl", map[string]string{"reward_user_held_out": "OUT"}, "reward_user_held_out"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			base := t.TempDir()
			dir, out := filepath.Join(base, "task"), filepath.Join(base, "outside")
			src := filepath.Join("testdata", filepath.Dir(tc.fixture))
			if err := os.CopyFS(dir, os.DirFS(src)); err != nil {
				t.Fatal(err)
			}
			if err := os.MkdirAll(out, 0o755); err != nil {
				t.Fatal(err)
			}
			for _, f := range []string{filepath.Join(out, "secret.txt"), filepath.Join(dir, "other.txt"), filepath.Join(out, "run_tests.sh")} {
				if err := os.WriteFile(f, []byte(secret), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			if tc.remove != "" {
				if err := os.RemoveAll(filepath.Join(dir, tc.remove)); err != nil {
					t.Fatal(err)
				}
			}
			for name, target := range tc.links {
				target = strings.Replace(target, "OUT", out, 1)
				if err := os.Symlink(target, filepath.Join(dir, name)); err != nil {
					t.Fatal(err)
				}
			}
			file := filepath.Join(dir, filepath.Base(tc.fixture))
			data, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			ts, diags := tasks.ParseFile(tasks.DirOrigin(dir, file), data)
			var all []string
			for _, d := range diags {
				all = append(all, d.Summary+": "+d.Detail)
			}
			if !diags.HasErrors() || !strings.Contains(strings.Join(all, "\n"), "is a symbolic link") {
				t.Errorf("diagnostics %q, want the link refused", all)
			}
			for _, tk := range ts {
				if strings.Contains(string(tasks.Encode(tk)), "OUTSIDE-ONLY") {
					t.Errorf("task %s carries the outside file", tk.Name)
				}
			}
		})
	}
}

// TestTaskReadsWithoutLinks: the same fixtures, without links, decode.
func TestTaskReadsWithoutLinks(t *testing.T) {
	for _, f := range []string{"testdata/links/notes_task.hcl", "testdata/valid/reward_user.hcl"} {
		t.Run(f, func(t *testing.T) {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			ts, diags := tasks.ParseFile(tasks.DirOrigin(filepath.Dir(f), f), data)
			if diags.HasErrors() || len(ts) != 1 {
				t.Fatalf("%d tasks: %v", len(ts), diags)
			}
		})
	}
}

// TestReadTaskFileRefusesALink: a study's task_files entry that is a link
// is not read.
func TestReadTaskFileRefusesALink(t *testing.T) {
	dir := t.TempDir()
	real := filepath.Join(dir, "real.hcl")
	if err := os.WriteFile(real, []byte(`task "x" {}`), 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link.hcl")
	if err := os.Symlink(real, link); err != nil {
		t.Fatal(err)
	}
	if _, err := tasks.ReadTaskFile(real); err != nil {
		t.Errorf("read the file itself: %v", err)
	}
	if _, err := tasks.ReadTaskFile(link); err == nil || !strings.Contains(err.Error(), "is a symbolic link") {
		t.Errorf("read a link: err %v, want it refused", err)
	}
}
