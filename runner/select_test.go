package runner

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/killchain/killchain/internal/results"
	"github.com/killchain/killchain/internal/study"
	"github.com/killchain/killchain/sandbox/local"
)

// TestSubsetsResumeIntoOneFolder runs subsets of a study into one folder,
// each a --resume of the last, then the full study: every step runs only
// what its selection keeps and no finished run again, the manifest keeps
// the full plan's hash and records the latest selection, and the folder
// ends with each run of the full plan exactly once.
func TestSubsetsResumeIntoOneFolder(t *testing.T) {
	s := loadStudy(t, "testdata/tiny.hcl")
	plan, err := s.Plan()
	if err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	done := map[string]results.Run{}
	steps := []struct {
		name   string
		sel    *study.Selection
		resume bool
	}{
		{"sample of one task", &study.Selection{Tasks: []string{"memory_poison"}, Sample: 3, Seed: 7}, false},
		{"another task", &study.Selection{Tasks: []string{"propagation"}}, true},
		{"overlapping condition", &study.Selection{Conditions: []string{"hack"}, Sample: 100, Seed: 1}, true},
		{"full study", nil, true},
		{"full study again", &study.Selection{}, true},
	}
	for _, step := range steps {
		t.Run(step.name, func(t *testing.T) {
			want := plan
			if step.sel != nil {
				want = step.sel.Apply(plan)
			}
			var skip int
			for _, pr := range want {
				if _, ok := done[pr.RunID]; ok {
					skip++
				}
			}
			r, err := New(s, Options{Output: out, Resume: step.resume, Backend: &local.Backend{Root: t.TempDir()}, Models: scriptedOnly, Selection: step.sel})
			if err != nil {
				t.Fatal(err)
			}
			sum, err := r.Run(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			if sum.Planned != len(plan) || sum.Selected != len(want) || sum.Skipped != skip || sum.Ran != len(want)-skip || sum.Errors != 0 {
				t.Fatalf("summary %+v, want %d planned, %d selected, %d skipped", sum, len(plan), len(want), skip)
			}

			runs := readAll(t, out)
			seen := map[string]bool{}
			for _, run := range runs {
				if seen[run.RunID] {
					t.Errorf("run %s recorded twice", run.RunID)
				}
				seen[run.RunID] = true
				if prev, ok := done[run.RunID]; ok && prev.Canary != run.Canary {
					t.Errorf("run %s was run again", run.RunID)
				}
				done[run.RunID] = run
			}
			for _, pr := range want {
				if !seen[pr.RunID] {
					t.Errorf("selected run %s is not recorded", pr.RunID)
				}
			}

			m, err := results.ReadManifest(out)
			if err != nil {
				t.Fatal(err)
			}
			if m.PlanHash != s.PlanHash(plan) || m.Planned != len(plan) {
				t.Errorf("manifest plan %s of %d runs, want the full plan's %s of %d", m.PlanHash, m.Planned, s.PlanHash(plan), len(plan))
			}
			switch {
			case step.sel == nil || step.sel.Empty():
				if m.Selection != nil {
					t.Errorf("full study recorded selection %+v", m.Selection)
				}
			case m.Selection == nil:
				t.Error("manifest records no selection")
			default:
				if m.Selection.Selected != len(want) || m.Selection.Args != step.sel.String() ||
					!slices.Equal(m.Selection.Tasks, step.sel.Tasks) || (m.Selection.SampleSeed != nil) != (step.sel.Sample > 0) {
					t.Errorf("manifest selection %+v, want %s keeping %d", m.Selection, step.sel, len(want))
				}
			}
		})
	}
	if len(done) != len(plan) {
		t.Errorf("folder holds %d runs, want the full plan's %d", len(done), len(plan))
	}
}

func TestSelectionRefusals(t *testing.T) {
	s := loadStudy(t, "testdata/tiny.hcl")
	tests := []struct {
		name string
		sel  study.Selection
		want string
	}{
		{"unknown task", study.Selection{Tasks: []string{"tool_poison"}}, `"tool_poison" is not a task of this study`},
		{"negative sample", study.Selection{Sample: -2}, "--sample -2"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := New(s, Options{Output: t.TempDir(), Backend: &local.Backend{Root: t.TempDir()}, Models: scriptedOnly, Selection: &tt.sel})
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("err = %v, want %q", err, tt.want)
			}
		})
	}
	t.Run("a subset's folder without --resume", func(t *testing.T) {
		out := t.TempDir()
		sel := &study.Selection{Sample: 1, Seed: 1}
		for i, want := range []string{"", "already holds a study: resume it with --resume"} {
			r, err := New(s, Options{Output: out, Backend: &local.Backend{Root: t.TempDir()}, Models: scriptedOnly, Selection: sel})
			if err != nil {
				t.Fatal(err)
			}
			_, err = r.Run(context.Background())
			if (err == nil) != (want == "") || err != nil && !strings.Contains(err.Error(), want) {
				t.Errorf("run %d: err = %v, want %q", i, err, want)
			}
		}
	})
}
