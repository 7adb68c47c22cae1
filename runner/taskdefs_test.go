package runner

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/killchain/killchain/internal/results"
	"github.com/killchain/killchain/internal/study"
	"github.com/killchain/killchain/sandbox/local"
	"github.com/killchain/killchain/tasks"
)

// copyTree copies the regular files under src into dst.
func copyTree(t *testing.T, src, dst string) {
	t.Helper()
	err := filepath.WalkDir(src, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if err := os.MkdirAll(filepath.Join(dst, filepath.Dir(rel)), 0o755); err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}

func runInto(t *testing.T, s *study.Study, out string, resume bool) (Summary, error) {
	t.Helper()
	r, err := New(s, Options{Output: out, Resume: resume, Backend: &local.Backend{Root: t.TempDir()}, Models: scriptedOnly,
		Selection: &study.Selection{Models: []string{"compliant"}}})
	if err != nil {
		t.Fatal(err)
	}
	return r.Run(t.Context())
}

// TestTaskDefinitionsKept checks that a study folder keeps the exact
// definition of every task it ran, names them in manifest.json and each
// transcript, resumes from them, and refuses to resume a changed task.
func TestTaskDefinitionsKept(t *testing.T) {
	src := t.TempDir()
	copyTree(t, "testdata/usertasks", src)
	s := loadStudy(t, filepath.Join(src, "study.hcl"))
	out := filepath.Join(t.TempDir(), "study")
	if _, err := runInto(t, s, out, false); err != nil {
		t.Fatal(err)
	}
	m, err := results.ReadManifest(out)
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Tasks) != 3 {
		t.Fatalf("manifest tasks %+v, want the three the plan runs", m.Tasks)
	}
	for _, info := range m.Tasks {
		t.Run(info.Name, func(t *testing.T) {
			now, _ := s.Tasks.Get(info.Name)
			if info.Builtin || info.SHA256 != now.Hash() || !strings.HasSuffix(info.Source, info.Name+".hcl") {
				t.Errorf("manifest entry %+v (hash now %s)", info, now.Hash())
			}
			data, err := os.ReadFile(filepath.Join(out, info.File))
			if err != nil {
				t.Fatal(err)
			}
			kept, diags := tasks.ParseFile(tasks.Origin{File: info.File}, data)
			if diags.HasErrors() || len(kept) != 1 || kept[0].Hash() != info.SHA256 {
				t.Errorf("the kept definition decodes to %d tasks, %v", len(kept), diags)
			}
		})
	}
	for _, run := range readAll(t, out) {
		tr, err := results.ReadTranscript(out, run.RunID)
		if err != nil {
			t.Fatal(err)
		}
		if info, _ := m.Task(run.Task); tr.TaskHash != info.SHA256 {
			t.Errorf("run %s: transcript task hash %s, manifest %s", run.RunID, tr.TaskHash, info.SHA256)
		}
	}

	t.Run("the folder resumes from the definitions it keeps", func(t *testing.T) {
		// The folder's study.hcl names task files relative to where the
		// study was; the folder's own copies stand in for them.
		again := loadStudy(t, filepath.Join(out, results.StudyFile))
		sum, err := runInto(t, again, out, true)
		if err != nil || sum.Ran != 0 {
			t.Fatalf("resume ran %d runs, err %v", sum.Ran, err)
		}
		after, err := results.ReadManifest(out)
		if err != nil {
			t.Fatal(err)
		}
		for _, info := range after.Tasks {
			if !strings.HasPrefix(info.Source, src) {
				t.Errorf("after the resume %s is recorded from %s, not where it was first read", info.Name, info.Source)
			}
		}
	})
	t.Run("a changed task is refused", func(t *testing.T) {
		file := filepath.Join(src, "tasks", "calendar_notes.hcl")
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		changed := bytes.Replace(data, []byte("cut to 40 boxes"), []byte("cut to 30 boxes"), 1)
		if err := os.WriteFile(file, changed, 0o644); err != nil {
			t.Fatal(err)
		}
		_, err = runInto(t, loadStudy(t, filepath.Join(src, "study.hcl")), out, true)
		if err == nil || !strings.Contains(err.Error(), "task calendar_notes changed") {
			t.Fatalf("resume of a changed task: err = %v", err)
		}
	})
}
