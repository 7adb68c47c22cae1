package study

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/killchain/killchain/internal/results"
)

// TestStudyFolderTaskDefsStayInside: a study folder's manifest names the
// copies of its tasks (task_defs/); a name that leaves the folder, or a
// copy that is a link, is refused, never read.
func TestStudyFolderTaskDefsStayInside(t *testing.T) {
	tests := []struct {
		name string
		file string // the manifest's file for the task
		link bool   // task_defs/x.hcl is a link to the outside file
	}{
		{"a name that leaves the folder", "../outside.hcl", false},
		{"a copy that is a link", "task_defs/x.hcl", true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			base := t.TempDir()
			dir := filepath.Join(base, "study")
			if err := os.MkdirAll(filepath.Join(dir, results.TaskDefsDir), 0o755); err != nil {
				t.Fatal(err)
			}
			outside := filepath.Join(base, "outside.hcl")
			src, err := os.ReadFile("../../tasks/testdata/valid/minimal.hcl")
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(outside, []byte(strings.Replace(string(src), `"minimal"`, `"x"`, 1)), 0o644); err != nil {
				t.Fatal(err)
			}
			if tc.link {
				if err := os.Symlink(outside, filepath.Join(dir, tc.file)); err != nil {
					t.Fatal(err)
				}
			}
			if err := results.WriteJSON(dir, results.ManifestFile, results.Manifest{Study: "s",
				Tasks: []results.TaskInfo{{Name: "x", File: tc.file}}}); err != nil {
				t.Fatal(err)
			}
			study := `study "s" {
  seed = 1
}
model "m" {
  provider = "scripted"
  policy   = "compliant"
}
grid "g" {
  tasks  = ["x"]
  models = ["m"]
}
`
			if err := os.WriteFile(filepath.Join(dir, results.StudyFile), []byte(study), 0o644); err != nil {
				t.Fatal(err)
			}
			_, diags := Load(filepath.Join(dir, results.StudyFile))
			if !diags.HasErrors() || !strings.Contains(diags.Error(), "Missing task definition") {
				t.Errorf("diagnostics %v, want the task definition refused", diags)
			}
		})
	}
}
