package study

import (
	"fmt"
	"math"
	"slices"

	"github.com/hashicorp/hcl/v2"

	"github.com/killchain/killchain/internal/hcldiag"
	"github.com/killchain/killchain/internal/vocab"
)

// Threshold metrics. The gate package defines what each counts.
const (
	MetricASR         = "asr"
	MetricAttackGoal  = "attack_goal"
	MetricTaskSuccess = "task_success"
	MetricExposed     = "exposed"
	MetricPersisted   = "persisted"
	MetricRelayed     = "relayed"
	MetricExecuted    = "executed"
	MetricErrors      = "errors"
	// MetricHackRate and MetricTruePass count reward-hack runs only.
	MetricHackRate = "hack_rate"
	MetricTruePass = "true_pass"
	// MetricUtility, MetricUtilityUnderAttack and MetricTargetedASR count
	// the runs of suites only, as the peer benchmarks report them: the
	// user task's check over clean runs and over attacked runs, and the
	// injection's check over attacked runs.
	MetricUtility            = "utility"
	MetricUtilityUnderAttack = "utility_under_attack"
	MetricTargetedASR        = "targeted_asr"
)

// Metrics lists the metrics a threshold block may name.
var Metrics = []string{MetricASR, MetricAttackGoal, MetricTaskSuccess, MetricExposed,
	MetricPersisted, MetricRelayed, MetricExecuted, MetricErrors, MetricHackRate, MetricTruePass,
	MetricUtility, MetricUtilityUnderAttack, MetricTargetedASR}

// SuiteMetric reports whether a metric counts the runs of suites only.
func SuiteMetric(metric string) bool {
	return metric == MetricUtility || metric == MetricUtilityUnderAttack || metric == MetricTargetedASR
}

// MetricFamily is the task family a metric counts: every injection metric
// counts injection runs only, hack_rate and true_pass reward-hack runs
// only; errors counts every run ("").
func MetricFamily(metric string) string {
	switch metric {
	case MetricErrors:
		return ""
	case MetricHackRate, MetricTruePass:
		return vocab.FamilyRewardHack
	}
	return vocab.FamilyInjection
}

// Picked is what a threshold's selectors read of a run, planned or
// recorded: its models, task, condition and defense, and for a run of a
// suite the suite and the injection it plants ("" for a clean control).
type Picked struct {
	ModelA, ModelB, Task, Condition, Defense string
	Suite, Injection                         string
}

// Picks reports whether the threshold's selectors pick a run. Selectors of
// different kinds must all match; models and pairs together match either,
// as in a grid. A model matches the model alone and as a same-model pair; a
// pair matches the relay (or pipeline) run of that writer and reader.
// suites, user_tasks and injections pick runs of suites only; a clean
// control plants no injection, so injections never pick one.
func (t *Threshold) Picks(p Picked) bool {
	if len(t.Models) > 0 || len(t.Pairs) > 0 {
		model := (p.ModelB == "" || p.ModelB == p.ModelA) && slices.Contains(t.Models, p.ModelA)
		pair := p.ModelB != "" && slices.Contains(t.Pairs, [2]string{p.ModelA, p.ModelB})
		if !model && !pair {
			return false
		}
	}
	in := func(list []string, v string) bool { return len(list) == 0 || slices.Contains(list, v) }
	if (len(t.Suites) > 0 || len(t.UserTasks) > 0) && p.Suite == "" {
		return false
	}
	return in(t.Tasks, p.Task) && in(t.Conditions, p.Condition) && in(t.Defenses, p.Defense) &&
		in(t.Suites, p.Suite) && in(t.UserTasks, p.Task) && in(t.Injections, p.Injection)
}

// Counts reports whether a run of this family, attack and mode, in a suite
// or not, can be in the metric's denominator (an errored run aside): the
// injection stage metrics count attacked injection runs, persisted and
// relayed relay runs only, task_success every injection run, utility the
// clean runs of suites, utility_under_attack and targeted_asr the attacked
// runs of suites, the reward-hack metrics every reward-hack run, errors
// every run.
func (t *Threshold) Counts(family string, attacked bool, mode vocab.Mode, suite bool) bool {
	if f := MetricFamily(t.Metric); f != "" && f != family {
		return false
	}
	if SuiteMetric(t.Metric) && !suite {
		return false
	}
	switch t.Metric {
	case MetricErrors, MetricTaskSuccess, MetricHackRate, MetricTruePass:
		return true
	case MetricUtility:
		return !attacked
	case MetricPersisted, MetricRelayed:
		return attacked && mode != vocab.Single
	}
	return attacked
}

// checkReachable refuses a threshold whose selectors pick no planned run
// its metric counts (asr over the plain condition, relayed over single-agent
// tasks, hack_rate over injection tasks): it could never be judged.
func (d *decoder) checkReachable(plan []Run) {
	for i, t := range d.study.Thresholds {
		reachable := false
		for _, r := range plan {
			family := vocab.FamilyInjection
			if tk, ok := d.study.Tasks.Get(r.Task); ok {
				family = tk.Family()
			}
			picked := Picked{ModelA: r.ModelA, ModelB: r.ModelB, Task: r.Task, Condition: r.Condition, Defense: r.Defense,
				Suite: r.Suite, Injection: r.Injection}
			if t.Picks(picked) && t.Counts(family, r.Attacked, r.Mode, r.Suite != "") {
				reachable = true
				break
			}
		}
		if !reachable {
			d.errorf(hcldiag.LabelRange(d.thresholdBlocks[i]), "Threshold selects nothing",
				"Threshold %q can never be judged: no run of the plan that its selectors pick is counted by %s (%s). Widen the selectors or pick another metric.",
				t.Name, t.Metric, metricCounts[t.Metric])
		}
	}
}

// metricCounts says in a few words which runs each metric counts.
var metricCounts = map[string]string{
	MetricASR: "attacked injection runs", MetricAttackGoal: "attacked injection runs",
	MetricTaskSuccess: "injection runs", MetricExposed: "attacked injection runs",
	MetricPersisted: "attacked relay runs", MetricRelayed: "attacked relay runs",
	MetricExecuted: "attacked injection runs", MetricErrors: "every run",
	MetricHackRate: "reward-hack runs", MetricTruePass: "reward-hack runs",
	MetricUtility: "clean runs of suites", MetricUtilityUnderAttack: "attacked runs of suites",
	MetricTargetedASR: "attacked runs of suites",
}

// Bound kinds of a threshold.
const (
	BoundMax = "max"
	BoundMin = "min"
)

// Threshold is one threshold block: a CI gate on a rate over the runs its
// selectors pick. Empty selectors pick every run.
type Threshold struct {
	Name   string
	Metric string
	// Bound is BoundMax or BoundMin; Value is the rate in [0, 1].
	Bound string
	Value float64

	Models     []string    // a model alone, or as a same-model pair
	Pairs      [][2]string // [writer, reader] of relay runs
	Tasks      []string
	Conditions []string
	Defenses   []string
	// Suites, UserTasks and Injections pick runs of suites: of these
	// suites, of these user tasks, planting these injections.
	Suites, UserTasks, Injections []string
}

// Rule renders the bound, e.g. "asr ≤ 0.1".
func (t *Threshold) Rule() string {
	op := "≤"
	if t.Bound == BoundMin {
		op = "≥"
	}
	return fmt.Sprintf("%s %s %g", t.Metric, op, t.Value)
}

type rawThreshold struct {
	Metric     string     `hcl:"metric"`
	Models     []string   `hcl:"models,optional"`
	Pairs      [][]string `hcl:"pairs,optional"`
	Tasks      []string   `hcl:"tasks,optional"`
	Conditions []string   `hcl:"conditions,optional"`
	Defenses   []string   `hcl:"defenses,optional"`
	Suites     []string   `hcl:"suites,optional"`
	UserTasks  []string   `hcl:"user_tasks,optional"`
	Injections []string   `hcl:"injections,optional"`
	Max        *float64   `hcl:"max,optional"`
	Min        *float64   `hcl:"min,optional"`
}

// decodeThresholds decodes every threshold block; it runs after models,
// conditions and defenses are known.
func (d *decoder) decodeThresholds(blocks []*hcl.Block) {
	for _, b := range blocks {
		var raw rawThreshold
		bc := d.block(b, &raw)
		t := &Threshold{
			Name: bc.Name, Metric: raw.Metric,
			Models: raw.Models, Tasks: raw.Tasks, Conditions: raw.Conditions, Defenses: raw.Defenses,
			Suites: raw.Suites, UserTasks: raw.UserTasks, Injections: raw.Injections,
		}
		if bc.OK("metric") {
			d.oneOf(bc, "metric", t.Metric, Metrics, "metric")
		}
		d.thresholdBound(bc, t, &raw)
		d.thresholdNames(bc, t.Models, "models", "model", func(n string) bool { _, ok := d.modelRanges[n]; return ok }, d.modelNames)
		d.thresholdNames(bc, t.Tasks, "tasks", "task", func(n string) bool { _, ok := d.study.Tasks.Get(n); return ok }, d.study.Tasks.Names)
		d.thresholdNames(bc, t.Conditions, "conditions", "condition", func(n string) bool { _, ok := d.study.Condition(n); return ok }, d.conditionNames)
		d.thresholdNames(bc, t.Defenses, "defenses", "defense", func(n string) bool { _, ok := d.study.Defense(n); return ok }, d.defenseNames)
		d.thresholdSuites(bc, t)
		if bc.OK("pairs") {
			for i, p := range raw.Pairs {
				if len(p) != 2 {
					d.errorf(bc.Elem("pairs", i), "Invalid pair", "Each pair is [writer, reader], two model names; this one has %d.", len(p))
					continue
				}
				for j, m := range p {
					d.knownModel(bc.Elem2("pairs", i, j), m, "threshold \""+t.Name+"\"")
				}
				t.Pairs = append(t.Pairs, [2]string{p[0], p[1]})
			}
		}
		d.study.Thresholds = append(d.study.Thresholds, t)
		d.thresholdBlocks = append(d.thresholdBlocks, b)
	}
	d.checkDuplicates("threshold", blocks)
}

// thresholdBound checks that exactly one of max and min is set, in [0, 1].
func (d *decoder) thresholdBound(bc *hcldiag.Block, t *Threshold, raw *rawThreshold) {
	if bc.Bad["max"] || bc.Bad["min"] {
		return
	}
	switch {
	case raw.Max != nil && raw.Min != nil:
		d.errorf(bc.Rng("min"), "Both max and min",
			"Threshold %q sets both max and min; a threshold holds one bound, so declare a second threshold for the other.", t.Name)
		return
	case raw.Max == nil && raw.Min == nil:
		d.errorf(hcldiag.LabelRange(bc.Block), "Missing bound",
			"Threshold %q needs max = or min =, a rate in [0, 1].", t.Name)
		return
	case raw.Max != nil:
		t.Bound, t.Value = BoundMax, *raw.Max
	default:
		t.Bound, t.Value = BoundMin, *raw.Min
	}
	if t.Value < 0 || t.Value > 1 || math.IsNaN(t.Value) {
		d.errorf(bc.Rng(t.Bound), "Bound out of range",
			"%s must be a rate in [0, 1] (0.1 means 10%%); got %g.", t.Bound, t.Value)
	}
}

// thresholdNames checks a selector list: known, distinct and not empty.
func (d *decoder) thresholdNames(bc *hcldiag.Block, names []string, attr, what string, ok func(string) bool, all func() []string) {
	if !bc.OK(attr) {
		return
	}
	if len(names) == 0 {
		d.errorf(bc.Rng(attr), "Empty "+attr, "Omit %s to select every %s; an empty list selects none.", attr, what)
	}
	for i, n := range names {
		if slices.Contains(names[:i], n) {
			d.errorf(bc.Elem(attr, i), "Duplicate "+what, "Threshold %q lists %s %q more than once.", bc.Name, what, n)
			continue
		}
		if !ok(n) {
			d.errorf(bc.Elem(attr, i), "Unknown "+what, "%q is not a %s of this study%s.", n, what, known(n, all()))
		}
	}
}

// thresholdSuites checks the suite selectors: suites of the study, user
// tasks and injections of its suites.
func (d *decoder) thresholdSuites(bc *hcldiag.Block, t *Threshold) {
	set := d.study.Tasks
	var userTasks, injections []string
	for _, su := range set.Suites() {
		if ts, err := set.SuiteTasks(su); err == nil {
			for _, tk := range ts {
				userTasks = append(userTasks, tk.Name)
			}
		}
		if ins, err := set.SuiteInjections(su); err == nil {
			for _, in := range ins {
				injections = append(injections, in.Name)
			}
		}
	}
	names := func(l []string) func() []string {
		return func() []string { s := slices.Clone(l); slices.Sort(s); return slices.Compact(s) }
	}
	d.thresholdNames(bc, t.Suites, "suites", "suite", func(n string) bool { _, ok := set.Suite(n); return ok }, names(suiteNames(set)))
	d.thresholdNames(bc, t.UserTasks, "user_tasks", "user task", func(n string) bool { return slices.Contains(userTasks, n) }, names(userTasks))
	d.thresholdNames(bc, t.Injections, "injections", "injection", func(n string) bool { return slices.Contains(injections, n) }, names(injections))
}
