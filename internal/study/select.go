package study

import (
	"fmt"
	"slices"
	"strings"

	"github.com/killchain/killchain/internal/hcldiag"
)

// Selection picks a subset of a study's plan, as `run` and `plan` take it
// from --tasks, --models, --grids, --conditions, --defenses, --attacks and
// --sample. It
// only filters the full plan and never re-plans, so the runs it keeps have
// the full study's run ids and a later full run can --resume over them.
//
// Each list keeps the runs whose value is in it; an empty list keeps every
// run. Models matches a run's model, or either model of a writer→reader
// pair. Sample, when positive, then keeps a seeded, stratified sample of at
// most Sample of the filtered runs (see Stratum and Sample).
type Selection struct {
	Tasks      []string
	SkipTasks  []string // runs of these tasks are left out, whatever Tasks keeps
	Models     []string
	Grids      []string
	Conditions []string
	Defenses   []string
	Attacks    []string // matched against Run.AttackName
	Sample     int      // 0: no sampling
	Seed       int64    // the sample's seed; the CLI defaults it to the study's seed
}

// Empty reports whether the selection keeps the whole plan.
func (sel Selection) Empty() bool {
	return len(sel.Tasks)+len(sel.SkipTasks)+len(sel.Models)+len(sel.Grids)+len(sel.Conditions)+len(sel.Defenses)+len(sel.Attacks) == 0 && sel.Sample <= 0
}

// Normalize trims the names, drops empty ones and duplicates, keeping the
// order given; flags such as --tasks "a, b" or --tasks a --tasks a arrive
// clean.
func (sel Selection) Normalize() Selection {
	clean := func(names []string) []string {
		var out []string
		for _, n := range names {
			n = strings.TrimSpace(n)
			if n != "" && !slices.Contains(out, n) {
				out = append(out, n)
			}
		}
		return out
	}
	sel.Tasks, sel.SkipTasks, sel.Models, sel.Grids = clean(sel.Tasks), clean(sel.SkipTasks), clean(sel.Models), clean(sel.Grids)
	sel.Conditions, sel.Defenses, sel.Attacks = clean(sel.Conditions), clean(sel.Defenses), clean(sel.Attacks)
	return sel
}

// Validate returns every problem of the selection against a study: names
// that none of the study's grids uses (each with the closest valid name and
// the list of valid ones) and a negative sample. Names are checked against
// what the grids use, not merely what the file declares: a declared model
// that no grid runs would select nothing.
func (sel Selection) Validate(s *Study) []error {
	var errs []error
	used := usedNames(s)
	check := func(flag, what string, names, valid []string) {
		for _, n := range names {
			if !slices.Contains(valid, n) {
				errs = append(errs, unknownName(flag, what, n, valid))
			}
		}
	}
	check("tasks", "task", sel.Tasks, used.tasks)
	check("skip-tasks", "task", sel.SkipTasks, used.tasks)
	check("models", "model", sel.Models, used.models)
	check("grids", "grid", sel.Grids, used.grids)
	check("conditions", "condition", sel.Conditions, used.conditions)
	check("defenses", "defense", sel.Defenses, used.defenses)
	check("attacks", "attack", sel.Attacks, used.attacks)
	if sel.Sample < 0 {
		errs = append(errs, fmt.Errorf("--sample %d: the sample size must be 0 (no sampling) or more", sel.Sample))
	}
	return errs
}

// names are the names a study's grids use, in order of first use.
type names struct {
	tasks, models, grids, conditions, defenses, attacks []string
}

func usedNames(s *Study) names {
	var n names
	add := func(list *[]string, vs ...string) {
		for _, v := range vs {
			if !slices.Contains(*list, v) {
				*list = append(*list, v)
			}
		}
	}
	for _, g := range s.Grids {
		add(&n.grids, g.Name)
		add(&n.tasks, g.Tasks...)
		add(&n.models, g.Models...)
		for _, p := range g.Pairs {
			add(&n.models, p[0], p[1])
		}
		add(&n.conditions, g.Conditions...)
		add(&n.defenses, g.Defenses...)
	}
	if plan, err := s.Plan(); err == nil {
		for _, r := range plan {
			add(&n.attacks, r.AttackName())
		}
	}
	return n
}

// unknownName says that name is not a valid value of --flag, suggesting
// the closest valid name when one is near.
func unknownName(flag, what, name string, valid []string) error {
	hint := ""
	if best := hcldiag.Closest(name, valid); best != "" {
		hint = fmt.Sprintf("did you mean %q? ", best)
	}
	if len(valid) == 0 {
		return fmt.Errorf("--%s: %q is not a %s of this study (its grids use none)", flag, name, what)
	}
	return fmt.Errorf("--%s: %q is not a %s of this study; %sits grids use: %s", flag, name, what, hint, strings.Join(valid, ", "))
}

// Filter keeps the runs that every non-empty list of the selection admits,
// in the plan's order. It ignores Sample.
func (sel Selection) Filter(runs []Run) []Run {
	in := func(list []string, v string) bool { return len(list) == 0 || slices.Contains(list, v) }
	var out []Run
	for _, r := range runs {
		model := len(sel.Models) == 0 || slices.Contains(sel.Models, r.ModelA) ||
			r.ModelB != "" && slices.Contains(sel.Models, r.ModelB)
		if model && in(sel.Tasks, r.Task) && !slices.Contains(sel.SkipTasks, r.Task) && in(sel.Grids, r.Grid) &&
			in(sel.Conditions, r.Condition) && in(sel.Defenses, r.Defense) && in(sel.Attacks, r.AttackName()) {
			out = append(out, r)
		}
	}
	return out
}

// Apply filters the plan's runs and then, when Sample is positive, keeps a
// stratified sample of the filtered runs (Sample). The runs keep their ids
// and the plan's order.
func (sel Selection) Apply(runs []Run) []Run {
	runs = sel.Filter(runs)
	if sel.Sample > 0 {
		runs = Sample(runs, sel.Sample, sel.Seed)
	}
	return runs
}

// String renders the selection as the flags that make it, e.g.
// "--tasks memory_poison,tool_poison --sample 40 --sample-seed 42"; "" for
// an empty selection.
func (sel Selection) String() string {
	var parts []string
	for _, f := range []struct {
		flag  string
		names []string
	}{
		{"tasks", sel.Tasks}, {"skip-tasks", sel.SkipTasks}, {"models", sel.Models}, {"grids", sel.Grids},
		{"conditions", sel.Conditions}, {"defenses", sel.Defenses}, {"attacks", sel.Attacks},
	} {
		if len(f.names) > 0 {
			parts = append(parts, "--"+f.flag+" "+strings.Join(f.names, ","))
		}
	}
	if sel.Sample > 0 {
		parts = append(parts, fmt.Sprintf("--sample %d --sample-seed %d", sel.Sample, sel.Seed))
	}
	return strings.Join(parts, " ")
}
