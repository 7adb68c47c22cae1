package runview

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/killchain/killchain/internal/results"
)

// pickRuns is a small study: cells a, b and c of four repeats each; a's
// repeat 3 errored, b's repeat 2 executed (with the attack goal, so it
// is not flagged), the rest reached nothing.
func pickRuns() []results.Run {
	yes := true
	var runs []results.Run
	for _, cell := range []string{"a", "b", "c"} {
		for rep := range 4 {
			r := results.Run{RunID: fmt.Sprintf("%s-%d", cell, rep), Cell: cell, Repeat: rep, Attacked: true, Stage: "none"}
			switch {
			case cell == "a" && rep == 3:
				r.Error, r.ErrorKind = "boom", "provider"
			case cell == "b" && rep == 2:
				r.Executed, r.Exposed, r.AttackGoal, r.Stage = &yes, &yes, true, "executed"
			}
			runs = append(runs, r)
		}
	}
	return runs
}

// TestPicker: which runs the run list holds and which of them get a page,
// whatever the order the runs come in.
func TestPicker(t *testing.T) {
	tests := []struct {
		name   string
		opts   Picking
		listed []string
		pages  []string
	}{
		{"every run listed; pages for the error, the execution and the first of each cell",
			Picking{All: 100, PerCell: 1, MaxPages: 100}, nil,
			[]string{"a-0", "a-3", "b-0", "b-2", "c-0"}},
		{"two per cell", Picking{All: 100, PerCell: 2, MaxPages: 100}, nil,
			[]string{"a-0", "a-1", "a-3", "b-0", "b-1", "b-2", "c-0", "c-1"}},
		{"few pages go to each cell's most telling run first", Picking{All: 100, PerCell: 2, MaxPages: 3}, nil,
			[]string{"a-3", "b-2", "c-0"}},
		{"no pages", Picking{All: 100, PerCell: 2, MaxPages: -1}, nil, nil},
		{"no first runs: the telling ones only", Picking{All: 100, MaxPages: 100}, nil, []string{"a-3", "b-2"}},
		{"a large study: the flagged run and a sample", Picking{All: 2, Sample: 3, PerCell: 1, MaxPages: 100},
			[]string{"a-0", "a-1", "a-2", "a-3"}, // a-3, and the three smallest hashes of their ids
			[]string{"a-0", "a-3"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			runs := pickRuns()
			var first []Picked
			for seed := range uint64(4) {
				rng := rand.New(rand.NewPCG(seed, 1))
				rng.Shuffle(len(runs), func(i, j int) { runs[i], runs[j] = runs[j], runs[i] })
				p := NewPicker(tt.opts)
				for i := range runs {
					p.Add(&runs[i], "")
				}
				got := p.Result()
				if seed == 0 {
					first = got
				} else if !slices.EqualFunc(got, first, func(a, b Picked) bool { return a.Run.RunID == b.Run.RunID && a.Page == b.Page }) {
					t.Fatal("another order of the runs gave another choice")
				}
			}
			var listed, pages []string
			for _, p := range first {
				listed = append(listed, p.Run.RunID)
				if p.Page {
					pages = append(pages, p.Run.RunID)
				}
			}
			want := tt.listed
			if want == nil {
				for _, r := range pickRuns() {
					want = append(want, r.RunID)
				}
			}
			slices.Sort(want)
			if !slices.Equal(listed, want) {
				t.Errorf("listed %v, want %v", listed, want)
			}
			if !slices.Equal(pages, tt.pages) {
				t.Errorf("pages %v, want %v", pages, tt.pages)
			}
		})
	}
}
