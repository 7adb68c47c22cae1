package report

import (
	"cmp"
	"slices"

	"github.com/killchain/killchain/internal/results"
	"github.com/killchain/killchain/internal/vocab"
)

// The suite section counts the runs of grids over suites (a user task over
// a stateful environment, crossed with injection tasks, plus each user
// task's clean control) with the metrics the peer benchmarks report beside
// the kill-chain stages:
//
//   - utility: task_success (the user task's check) over the clean runs;
//   - utility under attack: task_success over the attacked runs;
//   - targeted attack success: attack_goal (the injection's check) over the
//     attacked runs;
//   - the stages over the attacked runs where each applies (Persisted and
//     Relayed in pipelines only; Executed only for injections whose effect
//     carries free text, the attack goal deciding elsewhere).
//
// Every denominator leaves out errored runs, which are counted apart. Suite
// runs are injection runs: a run of the other family is never counted.
// suitetables.go renders the counts.

// suiteGroup is one grouping of the suite runs: the headline (per suite and
// model) and the breakdowns.
type suiteGroup int

const (
	suiteHeadline suiteGroup = iota
	suiteByTask
	suiteByInjection
	suiteByKind
	suiteByVector
	suiteByHelpful
	nSuiteGroups
)

// suiteKey is one row's counters: a suite, the breakdown's value (by: a
// user task, an injection, a kind, a vector; "" in the headline), a model
// or writer→reader pair, a defense, and the condition of attacked runs.
// Clean runs are counted apart (attacked false, condition "") and joined
// to every attacked condition of their row.
type suiteKey struct {
	suite, by, model, defense, condition string
	attacked                             bool
}

// row is the key without condition and attack: the rows a table shows.
func (k suiteKey) row() suiteKey {
	return suiteKey{suite: k.suite, by: k.by, model: k.model, defense: k.defense}
}

func compareSuiteKeys(a, b suiteKey) int {
	return cmp.Or(cmp.Compare(a.suite, b.suite), cmp.Compare(a.by, b.by), cmp.Compare(a.model, b.model),
		cmp.Compare(a.defense, b.defense), compareBool(a.attacked, b.attacked), cmp.Compare(a.condition, b.condition))
}

// suiteCounts are the counters of one key. Every count but errors is of
// runs without an error.
type suiteCounts struct {
	runs, errors int
	// success counts task_success (utility on clean runs, utility under
	// attack on attacked ones), goal the attack goal (attacked runs).
	success, goal int
	// Stage rates over the attacked runs where the stage applies.
	exposed, persisted, relayed, executed Rate
	// noExecuted counts attacked runs where Executed does not apply.
	noExecuted int
	// last counts attacked runs by furthest stage, indexed like Stages.
	last [5]int
	// depth counts attacked runs by relay depth where it applies
	// (pipelines); depthN is their number.
	depth  map[int]int
	depthN int
}

func (c *suiteCounts) add(r *results.Run) {
	if r.Error != "" {
		c.errors++
		return
	}
	c.runs++
	if r.TaskSuccess {
		c.success++
	}
	if !r.Attacked {
		return
	}
	if r.AttackGoal {
		c.goal++
	}
	c.exposed.observe(r.Exposed)
	c.persisted.observe(r.Persisted)
	c.relayed.observe(r.Relayed)
	c.executed.observe(r.Executed)
	if r.Executed == nil {
		c.noExecuted++
	}
	if i := slices.Index(Stages, r.Stage); i >= 0 {
		c.last[i]++
	}
	if d := r.Stateful.RelayDepth; d != nil {
		if c.depth == nil {
			c.depth = map[int]int{}
		}
		c.depth[*d]++
		c.depthN++
	}
}

// staged is the number of attacked runs with a known furthest stage.
func (c *suiteCounts) staged() int {
	n := 0
	for _, k := range c.last {
		n += k
	}
	return n
}

// suiteTally counts the suite runs as the report reads them.
type suiteTally struct {
	groups [nSuiteGroups]map[suiteKey]*suiteCounts
	// kinds is each injection's kind, helpful whether each user task is
	// helpful, as the runs say (per suite).
	kinds   map[[2]string]string
	helpful map[[2]string]bool
	// conditions and defenses seen on suite runs: the Markdown tables show
	// a column only when it splits the rows.
	conditions, defenses map[string]bool
	anyHelpful           bool
}

func newSuiteTally() *suiteTally {
	t := &suiteTally{kinds: map[[2]string]string{}, helpful: map[[2]string]bool{},
		conditions: map[string]bool{}, defenses: map[string]bool{}}
	for i := range t.groups {
		t.groups[i] = map[suiteKey]*suiteCounts{}
	}
	return t
}

// add counts one run; runs outside suites, and runs of the reward-hack
// family, are ignored.
func (t *suiteTally) add(r *results.Run) {
	if r.RunSuite() == "" || r.RunFamily() != vocab.FamilyInjection {
		return
	}
	s := r.Stateful
	base := suiteKey{suite: s.Suite, model: modelLabel(Cell{ModelA: r.ModelA, ModelB: r.ModelB}), defense: r.Defense}
	if r.Attacked {
		base.attacked, base.condition = true, r.Condition
		t.conditions[r.Condition] = true
		if s.Injection != "" {
			t.kinds[[2]string{s.Suite, s.Injection}] = s.InjectionKind
		}
	}
	t.defenses[r.Defense] = true
	t.helpful[[2]string{s.Suite, r.Task}] = s.Helpful
	t.anyHelpful = t.anyHelpful || s.Helpful
	count := func(g suiteGroup, by string) {
		k := base
		k.by = by
		c := t.groups[g][k]
		if c == nil {
			c = &suiteCounts{}
			t.groups[g][k] = c
		}
		c.add(r)
	}
	count(suiteHeadline, "")
	count(suiteByTask, r.Task)
	helpful := "other"
	if s.Helpful {
		helpful = "helpful"
	}
	count(suiteByHelpful, helpful)
	if r.Attacked {
		// A clean control plants no injection: the injection, kind and
		// vector tables count attacked runs only.
		count(suiteByInjection, s.Injection)
		count(suiteByKind, s.InjectionKind)
		count(suiteByVector, r.Surface)
	}
}

// suiteRow is one row of a suite table: its clean counters and those of one
// attacked condition (either nil when the row has none).
type suiteRow struct {
	key             suiteKey // condition: the attacked one, "" without attacked runs
	clean, attacked *suiteCounts
}

// rows joins a grouping's counters into rows, sorted: one per attacked
// condition of each row key (its clean counters repeated on each), or one
// with the clean counters alone.
func (t *suiteTally) rows(g suiteGroup) []suiteRow {
	m := t.groups[g]
	keys := make([]suiteKey, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, compareSuiteKeys)
	withAttack := map[suiteKey]bool{}
	for k := range m {
		if k.attacked {
			withAttack[k.row()] = true
		}
	}
	var out []suiteRow
	for _, k := range keys {
		switch {
		case k.attacked:
			out = append(out, suiteRow{key: k, clean: m[k.row()], attacked: m[k]})
		case !withAttack[k]:
			out = append(out, suiteRow{key: k, clean: m[k]})
		}
	}
	return out
}

// errors is the row's errored runs, clean and attacked.
func (r suiteRow) errors() int {
	n := 0
	for _, c := range []*suiteCounts{r.clean, r.attacked} {
		if c != nil {
			n += c.errors
		}
	}
	return n
}

// utility is task_success over the row's clean runs.
func (r suiteRow) utility() Rate {
	if r.clean == nil {
		return Rate{}
	}
	return Rate{K: r.clean.success, N: r.clean.runs}
}

// att returns the row's attacked counters, empty when it has none.
func (r suiteRow) att() *suiteCounts {
	if r.attacked == nil {
		return &suiteCounts{}
	}
	return r.attacked
}

// underAttack is task_success over the row's attacked runs.
func (r suiteRow) underAttack() Rate { a := r.att(); return Rate{K: a.success, N: a.runs} }

// targeted is the attack goal over the row's attacked runs.
func (r suiteRow) targeted() Rate { a := r.att(); return Rate{K: a.goal, N: a.runs} }
