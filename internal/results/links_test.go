package results

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/killchain/killchain/internal/rooted"
)

// TestLinksInAStudyFolderAreRefused: a study folder passed between
// researchers may hold links; no write of the results follows one, and
// nothing outside the folder changes.
func TestLinksInAStudyFolderAreRefused(t *testing.T) {
	tests := []struct {
		name  string
		link  string // the name in the study folder that links outside
		file  bool   // to the outside file (else to the outside folder)
		write func(dir string) error
	}{
		{"runs.jsonl linked outside", RunsFile, true, func(dir string) error {
			w, err := Open(dir)
			if err == nil {
				w.Close()
			}
			return err
		}},
		{"events.jsonl linked outside", EventsFile, true, func(dir string) error {
			w, err := Open(dir)
			if err == nil {
				w.Close()
			}
			return err
		}},
		{"transcripts linked to a folder outside", TranscriptsDir, false, func(dir string) error {
			w, err := Open(dir)
			if err != nil {
				return err
			}
			defer w.Close()
			return Write[struct{}](w, Run{RunID: "r1"}, nil, map[string]string{"a": "b"})
		}},
		{"manifest.json linked outside", ManifestFile, true, func(dir string) error {
			return WriteJSON(dir, ManifestFile, Manifest{Study: "s"})
		}},
		{"task_defs linked to a folder outside", TaskDefsDir, false, func(dir string) error {
			return WriteFile(dir, filepath.Join(TaskDefsDir, "t.hcl"), []byte("task"))
		}},
		{"attacker.jsonl linked outside", AttackerFile, true, func(dir string) error {
			return AppendAttacker(dir, AttackerRound{})
		}},
		{"study.hcl linked outside", StudyFile, true, func(dir string) error {
			return WriteFile(dir, StudyFile, []byte("study"))
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			base := t.TempDir()
			dir, out := filepath.Join(base, "study"), filepath.Join(base, "outside")
			for _, d := range []string{dir, out} {
				if err := os.Mkdir(d, 0o755); err != nil {
					t.Fatal(err)
				}
			}
			keep := filepath.Join(out, "keep")
			if err := os.WriteFile(keep, []byte("outside\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			target := out
			if tc.file {
				target = keep
			}
			if err := os.Symlink(target, filepath.Join(dir, tc.link)); err != nil {
				t.Fatal(err)
			}
			if err := tc.write(dir); !errors.Is(err, rooted.ErrLink) {
				t.Errorf("err %v, want a refused link", err)
			}
			ents, _ := os.ReadDir(out)
			if b, _ := os.ReadFile(keep); len(ents) != 1 || string(b) != "outside\n" {
				t.Errorf("the outside folder changed: %d entries, keep holds %q", len(ents), b)
			}
		})
	}
}
