package study

import (
	"slices"
	"strings"
	"testing"
)

// smokePlan loads hcl/smoke.hcl and plans it.
func smokePlan(t *testing.T) (*Study, []Run) {
	t.Helper()
	s, diags := Load("../../hcl/smoke.hcl")
	if diags.HasErrors() {
		t.Fatalf("smoke.hcl: %v", diagKeys(diags))
	}
	runs, err := s.Plan()
	if err != nil {
		t.Fatal(err)
	}
	return s, runs
}

func TestSelectionValidate(t *testing.T) {
	s, _ := smokePlan(t)
	tests := []struct {
		name string
		sel  Selection
		want []string // one substring per expected error, in order
	}{
		{name: "empty", sel: Selection{}},
		{name: "known names", sel: Selection{
			Tasks: []string{"memory_poison", "propagation"}, Models: []string{"resistant"}, Grids: []string{"defenses"},
			Conditions: []string{"hack"}, Defenses: []string{"all"}, Sample: 10}},
		{name: "misspelt task", sel: Selection{Tasks: []string{"memory_poisn"}},
			want: []string{`--tasks: "memory_poisn" is not a task of this study; did you mean "memory_poison"? its grids use: memory_poison, tool_poison`}},
		{name: "part of a task's name", sel: Selection{Tasks: []string{"audio"}},
			want: []string{`--tasks: "audio" is not a task of this study; did you mean "audio_inject"?`}},
		{name: "unknown model without a near name", sel: Selection{Models: []string{"gpt-4o"}},
			want: []string{`--models: "gpt-4o" is not a model of this study; its grids use: compliant, resistant`}},
		{name: "every list", sel: Selection{
			Tasks: []string{"nope"}, Models: []string{"complaint"}, Grids: []string{"defences"},
			Conditions: []string{"hak"}, Defenses: []string{"spotlight"}},
			want: []string{`"nope" is not a task`, `did you mean "compliant"?`, `did you mean "defenses"?`,
				`did you mean "hack"?`, `did you mean "spotlighting"?`}},
		{name: "built-in names the grids use", sel: Selection{Conditions: []string{"narrate", "plain"}, Defenses: []string{"none"}}},
		{name: "negative sample", sel: Selection{Sample: -1}, want: []string{"--sample -1"}},
		{name: "misspelt skipped task", sel: Selection{SkipTasks: []string{"audio_injct"}},
			want: []string{`--skip-tasks: "audio_injct" is not a task of this study; did you mean "audio_inject"?`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			errs := tt.sel.Validate(s)
			if len(errs) != len(tt.want) {
				t.Fatalf("got %d errors %v, want %d", len(errs), errs, len(tt.want))
			}
			for i, w := range tt.want {
				if !strings.Contains(errs[i].Error(), w) {
					t.Errorf("error %d = %q, want it to contain %q", i, errs[i], w)
				}
			}
		})
	}
}

func TestSelectionValidateUnusedModel(t *testing.T) {
	s, _ := planOf(t, planHeader+`
grid "g" {
  tasks      = ["memory_poison"]
  models     = ["a"]
  conditions = ["plain"]
}
`)
	errs := Selection{Models: []string{"b"}}.Validate(s)
	if len(errs) != 1 || !strings.Contains(errs[0].Error(), `"b" is not a model of this study; its grids use: a`) {
		t.Errorf("a declared model no grid runs: %v", errs)
	}
}

func TestSelectionFilter(t *testing.T) {
	_, plan := smokePlan(t)
	tests := []struct {
		name string
		sel  Selection
		keep func(Run) bool
	}{
		{"no selection", Selection{}, func(Run) bool { return true }},
		{"skipped tasks", Selection{SkipTasks: []string{"audio_inject", "reward_dates"}},
			func(r Run) bool { return r.Task != "audio_inject" && r.Task != "reward_dates" }},
		{"tasks less the skipped", Selection{Tasks: []string{"memory_poison", "tool_poison"}, SkipTasks: []string{"tool_poison"}},
			func(r Run) bool { return r.Task == "memory_poison" }},
		{"tasks", Selection{Tasks: []string{"memory_poison", "tool_poison"}},
			func(r Run) bool { return r.Task == "memory_poison" || r.Task == "tool_poison" }},
		{"model alone or either side of a pair", Selection{Models: []string{"resistant"}},
			func(r Run) bool { return r.ModelA == "resistant" || r.ModelB == "resistant" }},
		{"grids", Selection{Grids: []string{"defenses_audio"}}, func(r Run) bool { return r.Grid == "defenses_audio" }},
		{"conditions and defenses together", Selection{Conditions: []string{"hack"}, Defenses: []string{"pi_detector", "all"}},
			func(r Run) bool { return r.Condition == "hack" && (r.Defense == "pi_detector" || r.Defense == "all") }},
		{"lists that exclude each other", Selection{Grids: []string{"narrate_relay"}, Conditions: []string{"plain"}},
			func(Run) bool { return false }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var want []string
			for _, r := range plan {
				if tt.keep(r) {
					want = append(want, r.RunID)
				}
			}
			got := ids(tt.sel.Apply(plan))
			if !slices.Equal(got, want) {
				t.Errorf("kept %d runs, want %d (in plan order)", len(got), len(want))
			}
		})
	}
	t.Run("normalize", func(t *testing.T) {
		sel := Selection{Tasks: []string{" memory_poison", "", "memory_poison", "tool_poison "}}.Normalize()
		if !slices.Equal(sel.Tasks, []string{"memory_poison", "tool_poison"}) {
			t.Errorf("normalized tasks %q", sel.Tasks)
		}
	})
}

func ids(runs []Run) []string {
	out := make([]string, len(runs))
	for i, r := range runs {
		out[i] = r.RunID
	}
	return out
}

func TestSample(t *testing.T) {
	_, plan := smokePlan(t)
	full := map[string]int{} // run id → index in the plan
	for i, r := range plan {
		full[r.RunID] = i
	}
	twoTasks := Selection{Tasks: []string{"memory_poison", "tool_poison"}}.Filter(plan)
	tests := []struct {
		name string
		runs []Run
		n    int
		seed int64
	}{
		{"two tasks, 40", twoTasks, 40, 42},
		{"two tasks, every stratum once", twoTasks, Strata(twoTasks), 42},
		{"two tasks, fewer than the strata", twoTasks, 5, 42},
		{"two tasks, one", twoTasks, 1, 7},
		{"whole study, 100", plan, 100, 42},
		{"whole study, other seed", plan, 100, -3},
		{"whole study, fewer than the strata", plan, 20, 42},
		{"more than there are", twoTasks, 1000, 42},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Sample(tt.runs, tt.n, tt.seed)
			want := min(tt.n, len(tt.runs))
			if len(got) != want {
				t.Fatalf("kept %d runs, want %d", len(got), want)
			}
			prev := -1
			for _, r := range got {
				i, ok := full[r.RunID]
				if !ok {
					t.Fatalf("run %s is not in the full plan", r.RunID)
				}
				if plan[i] != r {
					t.Fatalf("run %s differs from the full plan's", r.RunID)
				}
				if i <= prev {
					t.Fatalf("run %s out of plan order", r.RunID)
				}
				prev = i
			}
			strata, kept := Strata(tt.runs), Strata(got)
			if tt.n >= strata && kept != strata {
				t.Errorf("%d of %d strata represented with n = %d", kept, strata, tt.n)
			}
			if tt.n < strata {
				if kept != tt.n {
					t.Errorf("%d strata represented with n = %d < %d strata, want one run in each of n", kept, tt.n, strata)
				}
				tasks := map[string]bool{}
				for _, r := range got {
					tasks[r.Task] = true
				}
				if all := len(distinctTasks(tt.runs)); len(tasks) != min(tt.n, all) {
					t.Errorf("round-robin covers %d tasks, want %d", len(tasks), min(tt.n, all))
				}
			}
			if again := Sample(tt.runs, tt.n, tt.seed); !slices.Equal(ids(again), ids(got)) {
				t.Error("same seed, different sample")
			}
		})
	}
}

// distinctTasks lists the distinct tasks of runs.
func distinctTasks(runs []Run) []string {
	var out []string
	for _, r := range runs {
		if !slices.Contains(out, r.Task) {
			out = append(out, r.Task)
		}
	}
	return out
}

func TestSampleProportions(t *testing.T) {
	_, plan := smokePlan(t)
	t.Run("seeds differ", func(t *testing.T) {
		a, b := Sample(plan, 100, 1), Sample(plan, 100, 2)
		if slices.Equal(ids(a), ids(b)) {
			t.Error("seeds 1 and 2 gave the same sample")
		}
	})
	t.Run("large strata get more", func(t *testing.T) {
		got := Sample(plan, 200, 42)
		per := map[string]int{}
		size := map[string]int{}
		for _, r := range got {
			per[Stratum(r)]++
		}
		for _, r := range plan {
			size[Stratum(r)]++
		}
		// Proportional to the runs beyond each stratum's first: within one
		// run of the exact share.
		strata := len(size)
		rest, capacity := 200-strata, len(plan)-strata
		for k, n := range size {
			exact := 1 + float64(rest*(n-1))/float64(capacity)
			if d := float64(per[k]) - exact; d <= -1 || d >= 1 {
				t.Errorf("stratum %s (%d runs): kept %d, share %.2f", k, n, per[k], exact)
			}
		}
	})
	t.Run("cells before repeats", func(t *testing.T) {
		_, runs := planOf(t, planHeader+`
grid "g" {
  tasks      = ["memory_poison"]
  models     = ["a", "b"]
  conditions = ["plain"]
  repeats    = 5
}
`)
		got := Sample(runs, 2, 42)
		if len(got) != 2 || got[0].Cell == got[1].Cell {
			t.Errorf("two runs of one stratum with two cells: %v", ids(got))
		}
	})
	t.Run("apply samples after filters", func(t *testing.T) {
		sel := Selection{Tasks: []string{"propagation"}, Sample: 10, Seed: 42}
		got := sel.Apply(plan)
		if len(got) != 10 {
			t.Fatalf("kept %d", len(got))
		}
		for _, r := range got {
			if r.Task != "propagation" {
				t.Errorf("sampled %s outside the filter", r.RunID)
			}
		}
	})
}

func TestSelectionString(t *testing.T) {
	tests := []struct {
		name string
		sel  Selection
		want string
	}{
		{"empty", Selection{}, ""},
		{"filters and sample", Selection{Tasks: []string{"a", "b"}, Defenses: []string{"none"}, Sample: 40, Seed: 42},
			"--tasks a,b --defenses none --sample 40 --sample-seed 42"},
		{"skipped tasks", Selection{SkipTasks: []string{"audio_inject"}}, "--skip-tasks audio_inject"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.sel.String(); got != tt.want {
				t.Errorf("String() = %q, want %q", got, tt.want)
			}
			if tt.sel.Empty() != (tt.want == "") {
				t.Errorf("Empty() = %v", tt.sel.Empty())
			}
		})
	}
}
