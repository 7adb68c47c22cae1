package runner

import (
	"context"
	"path/filepath"
	"slices"
	"testing"

	"github.com/killchain/killchain/internal/agent"
	"github.com/killchain/killchain/internal/results"
	"github.com/killchain/killchain/internal/study"
	"github.com/killchain/killchain/sandbox/local"
)

// TestSchedule: the order runs start in holds every planned run once; its
// first wave holds one run of every cell, each cell's runs come repeat
// by repeat, every model (or pair) has a run among the first as many runs
// as there are models, and the same seed gives the same order.
func TestSchedule(t *testing.T) {
	tests := []struct {
		name string
		file string
	}{
		{"smoke", "../hcl/smoke.hcl"},
		{"paper", "../hcl/paper.hcl"},
		{"ci", "../hcl/ci.hcl"},
		{"attacks", "../hcl/attacks.hcl"},
		{"tiny", "testdata/tiny.hcl"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := loadStudy(t, tt.file)
			plan, err := s.Plan()
			if err != nil {
				t.Fatal(err)
			}
			order := schedule(s.Seed, plan)
			ids := func(runs []study.Run) []string {
				out := make([]string, len(runs))
				for i, r := range runs {
					out[i] = r.RunID
				}
				return out
			}
			got, want := ids(order), ids(plan)
			if !slices.Equal(sorted(got), sorted(want)) {
				t.Fatalf("the order is not a permutation of the plan's %d runs", len(plan))
			}
			if again := ids(schedule(s.Seed, plan)); !slices.Equal(again, got) {
				t.Error("the same seed gave another order")
			}
			cells := map[string]bool{}
			models := map[string]bool{}
			for _, r := range plan {
				cells[r.Cell] = true
				models[r.Models()] = true
			}
			wave := map[string]bool{}
			for _, r := range order[:len(cells)] {
				wave[r.Cell] = true
			}
			if len(wave) != len(cells) {
				t.Errorf("the first wave of %d runs covers %d of %d cells", len(cells), len(wave), len(cells))
			}
			early := map[string]bool{}
			for _, r := range order[:len(models)] {
				early[r.Models()] = true
			}
			if len(early) != len(models) {
				t.Errorf("the first %d runs cover %d of %d models", len(models), len(early), len(models))
			}
			last := map[string]int{}
			for _, r := range order {
				if prev, ok := last[r.Cell]; ok && r.Repeat < prev {
					t.Errorf("cell %s: repeat %d starts after repeat %d", r.Cell, r.Repeat, prev)
				}
				last[r.Cell] = r.Repeat
			}
			if len(cells) > 2 {
				if other := ids(schedule(s.Seed+1, plan)); slices.Equal(other, got) {
					t.Error("another seed gave the same order")
				}
			}
		})
	}
}

func sorted(s []string) []string {
	s = slices.Clone(s)
	slices.Sort(s)
	return s
}

// TestScheduleSurfacesBrokenModel: a study whose last model fails every
// call records that model's first error among its first runs, where the
// plan's own order reaches that model only in its last quarter.
func TestScheduleSurfacesBrokenModel(t *testing.T) {
	src := `study "broken" {
  seed        = 7
  concurrency = 1
  attempts    = 1
  output      = "unused"
  sandbox     = "local"
}
model "compliant" {
  provider = "scripted"
  policy   = "compliant"
}
model "resistant" {
  provider = "scripted"
  policy   = "resistant"
}
model "quoter" {
  provider = "scripted"
  policy   = "quoter"
}
model "broken" {
  provider = "scripted"
  policy   = "compliant"
}
grid "g" {
  tasks      = ["memory_poison"]
  variants   = ["direct"]
  models     = ["compliant", "resistant", "quoter", "broken"]
  conditions = ["hack"]
  repeats    = 6
}
`
	s, diags := study.Parse("broken.hcl", []byte(src))
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	plan, err := s.Plan()
	if err != nil {
		t.Fatal(err)
	}
	firstInPlan := slices.IndexFunc(plan, func(r study.Run) bool { return r.ModelA == "broken" })
	if firstInPlan < len(plan)*3/4 {
		t.Fatalf("the plan reaches the broken model at run %d of %d: the test shows nothing", firstInPlan+1, len(plan))
	}
	models := func(m *study.Model) (agent.Model, error) {
		inner, err := scriptedOnly(m)
		return failing{inner: inner, fail: func() bool { return m.Name == "broken" }}, err
	}
	out := t.TempDir()
	r, err := New(s, Options{Output: out, Backend: &local.Backend{Root: t.TempDir()}, Models: models})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	var order []results.Run
	if err := results.ReadRuns(filepath.Join(out, results.RunsFile), func(run results.Run) error {
		order = append(order, run)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	first := slices.IndexFunc(order, func(r results.Run) bool { return r.Error != "" })
	if first < 0 || first >= 4 {
		t.Errorf("the broken model's first error is run %d of %d, want among the first 4 (one per model)", first+1, len(order))
	}
}
