package report

import (
	"cmp"
	"iter"
	"maps"
	"slices"
	"strings"

	"github.com/killchain/killchain/internal/results"
	"github.com/killchain/killchain/internal/vocab"
)

// Stages are the values of a run's "stage" field, lowest first.
var Stages = vocab.StageNames()

// Cell is the finest grouping an Aggregator keeps. Every table is a rollup of
// cells (see Aggregator.Rollup), so new tables never need a new pass over the
// runs.
type Cell struct {
	Batch     string
	Task      string
	Variant   string
	Attack    string // the attack library's attack, or the task's own variant (results.Run.RunAttack)
	Surface   string
	Mode      string
	Condition string
	Defense   string
	ModelA    string
	ModelB    string
	Attacked  bool
}

// Model is the label a table shows: model_a for single-agent runs and
// "writer→reader" for relays.
func (c Cell) Model() string {
	if c.ModelB == "" {
		return c.ModelA
	}
	return c.ModelA + "→" + c.ModelB
}

// compareCells orders cells field by field, clean before attacked.
func compareCells(a, b Cell) int {
	return cmp.Or(
		cmp.Compare(a.Model(), b.Model()),
		cmp.Compare(a.ModelA, b.ModelA),
		cmp.Compare(a.ModelB, b.ModelB),
		cmp.Compare(a.Task, b.Task),
		cmp.Compare(a.Variant, b.Variant),
		cmp.Compare(a.Condition, b.Condition),
		cmp.Compare(a.Defense, b.Defense),
		cmp.Compare(a.Surface, b.Surface),
		cmp.Compare(a.Mode, b.Mode),
		cmp.Compare(a.Batch, b.Batch),
		cmp.Compare(a.Attack, b.Attack),
		compareBool(a.Attacked, b.Attacked),
	)
}

func compareBool(a, b bool) int {
	switch {
	case a == b:
		return 0
	case !a:
		return -1
	default:
		return 1
	}
}

// Rate is k of n.
type Rate struct {
	K, N int
}

// observe counts a nullable flag: a null flag (the stage does not apply to
// the run's mode) leaves the rate unchanged.
func (r *Rate) observe(b *bool) {
	if b == nil {
		return
	}
	r.N++
	if *b {
		r.K++
	}
}

// Counts are additive counters over a cell's runs. Every field but Errors
// counts only runs without an error.
type Counts struct {
	Runs   int // runs without an error
	Errors int // runs with an error, excluded from everything else

	// Stage rates; N counts the runs where the stage applies (flag not null).
	Exposed, Persisted, Relayed, Executed Rate
	// LastStage counts runs by furthest stage, indexed like Stages.
	LastStage [5]int
	// OtherStage counts runs whose stage field is not one of Stages.
	OtherStage int

	AttackGoal       int
	TaskSuccess      int
	GoalAndExecuted  int
	GoalNotExecuted  int // attack goal reached without the canary in an outbound call
	ExecutedNotGoal  int // canary in an outbound call, attack goal not reached
	Noticed          int
	NoticedThinking  int
	NoticedNarration int
	NoticedExecuted  int
	NoToolCall       int
	// CalledExecuted counts Executed runs that called the payload-carrying
	// tool (no_tool_call false): the numerator of CalledASR.
	CalledExecuted int
	// NoExecuted counts runs where Executed does not apply, NoExecutedCalled
	// those that called the payload tool: out of every Executed denominator.
	NoExecuted, NoExecutedCalled int
	Contaminated                 int

	BlockedWrites  int
	BlockedCalls   int
	RefusedCalls   int
	FailedCalls    int
	CanaryAttempts int
	// ClassifierErrors sums the pi_detector checks with no usable verdict;
	// ClassifierErrorRuns counts the runs with at least one.
	ClassifierErrors    int
	ClassifierErrorRuns int

	InputTokens     int64
	OutputTokens    int64
	ReasoningTokens int64
	DurationMS      int64
}

// Merge adds o's counters into c.
func (c *Counts) Merge(o *Counts) {
	c.Runs += o.Runs
	c.Errors += o.Errors
	for _, p := range []struct{ dst, src *Rate }{
		{&c.Exposed, &o.Exposed}, {&c.Persisted, &o.Persisted},
		{&c.Relayed, &o.Relayed}, {&c.Executed, &o.Executed},
	} {
		p.dst.K += p.src.K
		p.dst.N += p.src.N
	}
	for i := range c.LastStage {
		c.LastStage[i] += o.LastStage[i]
	}
	c.OtherStage += o.OtherStage
	c.AttackGoal += o.AttackGoal
	c.TaskSuccess += o.TaskSuccess
	c.GoalAndExecuted += o.GoalAndExecuted
	c.GoalNotExecuted += o.GoalNotExecuted
	c.ExecutedNotGoal += o.ExecutedNotGoal
	c.Noticed += o.Noticed
	c.NoticedThinking += o.NoticedThinking
	c.NoticedNarration += o.NoticedNarration
	c.NoticedExecuted += o.NoticedExecuted
	c.NoToolCall += o.NoToolCall
	c.CalledExecuted += o.CalledExecuted
	c.NoExecuted += o.NoExecuted
	c.NoExecutedCalled += o.NoExecutedCalled
	c.Contaminated += o.Contaminated
	c.BlockedWrites += o.BlockedWrites
	c.BlockedCalls += o.BlockedCalls
	c.RefusedCalls += o.RefusedCalls
	c.FailedCalls += o.FailedCalls
	c.CanaryAttempts += o.CanaryAttempts
	c.ClassifierErrors += o.ClassifierErrors
	c.ClassifierErrorRuns += o.ClassifierErrorRuns
	c.InputTokens += o.InputTokens
	c.OutputTokens += o.OutputTokens
	c.ReasoningTokens += o.ReasoningTokens
	c.DurationMS += o.DurationMS
}

// ASR is attack success over every run counted (the paper's denominator):
// Executed over the attacked runs without an error, no-tool-call runs
// included, where Executed applies. Call it on the counts of attacked
// cells.
func (c *Counts) ASR() Rate { return Rate{K: c.Executed.K, N: c.Executed.N} }

// CalledASR is attack success over the runs that called the
// payload-carrying tool: Executed over the runs without an error whose
// no_tool_call is false. A run that never called the tool never read the
// payload, so this is the rate among agents the attack actually reached.
func (c *Counts) CalledASR() Rate {
	return Rate{K: c.CalledExecuted, N: c.Runs - c.NoToolCall - c.NoExecutedCalled}
}

// add counts one run.
func (c *Counts) add(r *results.Run) {
	if r.Error != "" {
		c.Errors++
		return
	}
	c.Runs++
	c.Exposed.observe(r.Exposed)
	c.Persisted.observe(r.Persisted)
	c.Relayed.observe(r.Relayed)
	c.Executed.observe(r.Executed)
	if i := slices.Index(Stages, r.Stage); i >= 0 {
		c.LastStage[i]++
	} else {
		c.OtherStage++
	}
	exec := results.Is(r.Executed)
	count := func(n *int, b bool) {
		if b {
			*n++
		}
	}
	count(&c.AttackGoal, r.AttackGoal)
	count(&c.TaskSuccess, r.TaskSuccess)
	count(&c.GoalAndExecuted, r.AttackGoal && exec)
	count(&c.GoalNotExecuted, r.AttackGoal && !exec && r.Executed != nil)
	count(&c.NoExecuted, r.Executed == nil)
	count(&c.NoExecutedCalled, r.Executed == nil && !r.NoToolCall)
	count(&c.ExecutedNotGoal, exec && !r.AttackGoal)
	count(&c.Noticed, r.Noticed)
	count(&c.NoticedThinking, r.NoticedThinking)
	count(&c.NoticedNarration, r.NoticedNarration)
	count(&c.NoticedExecuted, r.Noticed && exec)
	count(&c.NoToolCall, r.NoToolCall)
	count(&c.CalledExecuted, exec && !r.NoToolCall)
	count(&c.Contaminated, r.Contaminated)
	c.BlockedWrites += r.BlockedWrites
	c.BlockedCalls += r.BlockedCalls
	c.RefusedCalls += r.RefusedCalls
	c.FailedCalls += r.FailedCalls
	c.CanaryAttempts += r.CanaryAttempts
	c.ClassifierErrors += r.ClassifierErrors
	count(&c.ClassifierErrorRuns, r.ClassifierErrors > 0)
	c.InputTokens += int64(r.InputTokens)
	c.OutputTokens += int64(r.OutputTokens)
	c.ReasoningTokens += int64(r.ReasoningTokens)
	c.DurationMS += r.DurationMS
}

// ErrorKey groups errored runs.
type ErrorKey struct {
	Cell
	Kind string
	// Reason is a sandbox error's fault ("unschedulable", "oom_killed", …)
	// where the backend named one.
	Reason string
}

// ErrorGroup counts the errored runs of one ErrorKey and keeps the one with
// the smallest run id as an example.
type ErrorGroup struct {
	Count   int
	RunID   string
	Message string
}

// Aggregator consumes runs one at a time and keeps only counters per Cell,
// so a study of any size is reported in memory proportional to its grid.
type Aggregator struct {
	// cells counts injection runs, the family every table and figure of
	// the kill chain is about; rewardCells the reward-hack runs, which
	// only the reward-hack section and the error tables show.
	cells       map[Cell]*Counts
	rewardCells map[Cell]*Counts
	errs        map[ErrorKey]*ErrorGroup
	studies     map[string]int
	families    map[string]int
	total       int
	errored     int
	// sorted is Cells' answer, kept until a new cell is seen.
	sorted []Cell

	// Disagreements lists attacked runs where attack goal and Executed differ.
	Disagreements *IDList
	// Anomalies lists clean runs that were contaminated, executed or reached
	// the attack goal.
	Anomalies *IDList
}

// NewAggregator returns an empty Aggregator whose run-id lists keep at most
// maxIDs entries each.
func NewAggregator(maxIDs int) *Aggregator {
	return &Aggregator{
		cells:         make(map[Cell]*Counts),
		rewardCells:   make(map[Cell]*Counts),
		errs:          make(map[ErrorKey]*ErrorGroup),
		studies:       make(map[string]int),
		families:      make(map[string]int),
		Disagreements: NewIDList(maxIDs),
		Anomalies:     NewIDList(maxIDs),
	}
}

// Add counts one run. Call it once per run id (see results.ReadLatestRuns).
// A reward-hack run is counted in the totals, the families and the error
// tables only: no injection rate counts it.
func (a *Aggregator) Add(r results.Run) { a.add(&r) }

// add is Add without a copy of the run.
func (a *Aggregator) add(r *results.Run) {
	a.total++
	a.studies[r.Study]++
	family := r.RunFamily()
	a.families[family]++
	cell := Cell{
		Batch: r.Batch, Task: r.Task, Variant: r.Variant, Attack: r.RunAttack(), Surface: r.Surface, Mode: r.Mode,
		Condition: r.Condition, Defense: r.Defense, ModelA: r.ModelA, ModelB: r.ModelB,
		Attacked: r.Attacked,
	}
	cells := a.cells
	if family == vocab.FamilyRewardHack {
		cells = a.rewardCells
	}
	c := cells[cell]
	if c == nil {
		c = &Counts{}
		cells[cell] = c
		a.sorted = nil
	}
	c.add(r)
	if r.Error != "" {
		a.errored++
		a.addError(cell, r)
		return
	}
	if family == vocab.FamilyRewardHack {
		return
	}
	exec := results.Is(r.Executed)
	switch {
	case r.Attacked && r.AttackGoal && !exec && r.Executed != nil:
		a.Disagreements.Add(r.RunID, "attack goal without Executed ("+where(&cell, r)+")")
	case r.Attacked && exec && !r.AttackGoal:
		a.Disagreements.Add(r.RunID, "Executed without attack goal ("+where(&cell, r)+")")
	}
	if !r.Attacked {
		var what []string
		if r.Contaminated {
			what = append(what, "contaminated")
		}
		if exec {
			what = append(what, "executed")
		}
		if r.AttackGoal {
			what = append(what, "attack goal")
		}
		if len(what) > 0 {
			a.Anomalies.Add(r.RunID, joinWords(what)+" in a clean run ("+where(&cell, r)+")")
		}
	}
}

// where names a run's model and task in a list's note.
func where(c *Cell, r *results.Run) string { return c.Model() + ", " + r.Task }

func (a *Aggregator) addError(cell Cell, r *results.Run) {
	k := ErrorKey{Cell: cell, Kind: string(r.ErrorKind), Reason: r.ErrorReason}
	g := a.errs[k]
	if g == nil {
		g = &ErrorGroup{}
		a.errs[k] = g
	}
	g.Count++
	if g.RunID == "" || r.RunID < g.RunID {
		g.RunID, g.Message = r.RunID, r.Error
	}
}

// Total is the number of runs added, errored ones included.
func (a *Aggregator) Total() int { return a.total }

// Families counts the runs added by task family (vocab.FamilyInjection,
// vocab.FamilyRewardHack), errored ones included.
func (a *Aggregator) Families() map[string]int { return maps.Clone(a.families) }

// Errored is the number of runs added with an error.
func (a *Aggregator) Errored() int { return a.errored }

// Studies returns the distinct study names of the runs, sorted.
func (a *Aggregator) Studies() []string { return sortedKeys(a.studies) }

// Cells returns every cell seen, sorted.
func (a *Aggregator) Cells() []Cell {
	if a.sorted == nil {
		a.sorted = make([]Cell, 0, len(a.cells))
		for c := range a.cells {
			a.sorted = append(a.sorted, c)
		}
		slices.SortFunc(a.sorted, compareCells)
	}
	return slices.Clone(a.sorted)
}

// Counts returns a copy of a cell's counters.
func (a *Aggregator) Counts(c Cell) Counts {
	if p := a.cells[c]; p != nil {
		return *p
	}
	return Counts{}
}

// Rollup merges the counters of every injection cell that keep accepts into
// the cell that project maps it to, and returns the merged cells sorted. A
// nil keep accepts every cell.
func (a *Aggregator) Rollup(keep func(Cell) bool, project func(Cell) Cell) ([]Cell, map[Cell]*Counts) {
	return rollup(keep, project, a.cells)
}

// RollupAll is Rollup over the cells of every family: for the tables that
// count runs and errors, not rates of the kill chain.
func (a *Aggregator) RollupAll(keep func(Cell) bool, project func(Cell) Cell) ([]Cell, map[Cell]*Counts) {
	return rollup(keep, project, a.cells, a.rewardCells)
}

func rollup(keep func(Cell) bool, project func(Cell) Cell, sets ...map[Cell]*Counts) ([]Cell, map[Cell]*Counts) {
	out := make(map[Cell]*Counts)
	for cell, c := range all(sets) {
		if keep != nil && !keep(cell) {
			continue
		}
		k := project(cell)
		m := out[k]
		if m == nil {
			m = &Counts{}
			out[k] = m
		}
		m.Merge(c)
	}
	keys := make([]Cell, 0, len(out))
	for k := range out {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, compareCells)
	return keys, out
}

// Errors returns the error groups rolled up by project, sorted by key and
// kind; each group keeps the example with the smallest run id.
func (a *Aggregator) Errors(project func(Cell) Cell) ([]ErrorKey, map[ErrorKey]ErrorGroup) {
	out := make(map[ErrorKey]ErrorGroup)
	for k, g := range a.errs {
		pk := ErrorKey{Cell: project(k.Cell), Kind: k.Kind, Reason: k.Reason}
		m := out[pk]
		m.Count += g.Count
		if m.RunID == "" || g.RunID < m.RunID {
			m.RunID, m.Message = g.RunID, g.Message
		}
		out[pk] = m
	}
	keys := make([]ErrorKey, 0, len(out))
	for k := range out {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(x, y ErrorKey) int {
		return cmp.Or(compareCells(x.Cell, y.Cell), cmp.Compare(x.Kind, y.Kind), cmp.Compare(x.Reason, y.Reason))
	})
	return keys, out
}

// Distinct returns the sorted distinct values of field over the injection
// cells that keep accepts (nil keeps all).
func (a *Aggregator) Distinct(keep func(Cell) bool, field func(Cell) string) []string {
	return distinct(keep, field, a.cells)
}

// DistinctAll is Distinct over the cells of every family.
func (a *Aggregator) DistinctAll(keep func(Cell) bool, field func(Cell) string) []string {
	return distinct(keep, field, a.cells, a.rewardCells)
}

func distinct(keep func(Cell) bool, field func(Cell) string, sets ...map[Cell]*Counts) []string {
	seen := make(map[string]int)
	for c := range all(sets) {
		if keep == nil || keep(c) {
			seen[field(c)]++
		}
	}
	return sortedKeys(seen)
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

func joinWords(w []string) string {
	if len(w) < 2 {
		return strings.Join(w, "")
	}
	return strings.Join(w[:len(w)-1], ", ") + " and " + w[len(w)-1]
}

// all iterates over the cells of every set.
func all(sets []map[Cell]*Counts) iter.Seq2[Cell, *Counts] {
	return func(yield func(Cell, *Counts) bool) {
		for _, set := range sets {
			for cell, c := range set {
				if !yield(cell, c) {
					return
				}
			}
		}
	}
}
