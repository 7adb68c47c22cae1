package analysis

import (
	"cmp"
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"

	"github.com/killchain/killchain/internal/results"
)

// LagRow is the exposure-to-execution lag of one model's attacked runs, in
// steps, over the executed runs whose lag is known.
type LagRow struct {
	Model    string
	Executed int // executed runs
	N        int // of them with a lag
	Median   float64
	Mean     float64
	Max      int
}

// OutboundRow compares a model's outbound calls (carried out) per run
// under attack and on clean controls.
type OutboundRow struct {
	Model                   string
	CleanN, AttackedN       int
	CleanMean, AttackedMean float64 // NaN without runs
	Excess                  float64 // AttackedMean − CleanMean
}

// DualRow counts, among a model's attacked runs, the runs with both the
// legitimate report and an injected outbound action. Dual, Legit and
// Injected come from the transcript (results.Forensics; over
// WithForensics runs); VerdictDual from the verifiers: task success and
// (Executed or attack goal).
type DualRow struct {
	Model                   string
	Attacked, WithForensics int
	Legit, Injected, Dual   int
	VerdictDual             int
}

// DriftSeries is mean drift per step index for clean and attacked runs.
type DriftSeries struct {
	Step                  []int // 1-based step numbers
	Clean, Attacked       []float64
	CleanN, AttackedN     []int
	MeanBefore, MeanAfter float64 // attacked runs: mean drift up to and after first exposure; NaN without runs
}

// TracerScore is the provenance tracer over all attacked runs with forensics.
type TracerScore struct {
	results.Tracer
	Runs      int
	Precision float64 // TP/(TP+FP); NaN when nothing was named
	Recall    float64 // TP/(TP+FN); NaN without canary sources
	HitRate   float64 // Hits/Calls
}

// Result is everything the analysis computed over a study.
type Result struct {
	Runs, Errors int
	Lag          []LagRow
	Outbound     []OutboundRow
	Dual         []DualRow
	Drift        DriftSeries
	Tracer       TracerScore
	// Classifier is nil when there are too few runs of a class; Why says why.
	Classifier *ClassifierResult
	Why        string
	Audit      Audit
}

// Result computes the final aggregates and fits the classifier.
func (a *Accumulator) Result() Result {
	res := Result{Runs: a.runs, Errors: a.errors, Audit: a.audit.Result()}
	for _, m := range slices.Sorted(maps.Keys(a.lag)) {
		l := a.lag[m]
		row := LagRow{Model: m, Executed: l.executed, N: l.n, Median: l.median(), Mean: math.NaN(), Max: l.max}
		if l.n > 0 {
			row.Mean = l.sum / float64(l.n)
		}
		res.Lag = append(res.Lag, row)
	}
	for _, m := range slices.Sorted(maps.Keys(a.outbound)) {
		o := a.outbound[m]
		row := OutboundRow{Model: m, CleanN: o.cleanN, AttackedN: o.attackedN, CleanMean: ratio(o.cleanSum, o.cleanN), AttackedMean: ratio(o.attackedSum, o.attackedN)}
		row.Excess = row.AttackedMean - row.CleanMean
		res.Outbound = append(res.Outbound, row)
	}
	for _, m := range slices.Sorted(maps.Keys(a.dual)) {
		d := a.dual[m]
		res.Dual = append(res.Dual, DualRow{Model: m, Attacked: d.attacked, WithForensics: d.withForensics, Legit: d.legit, Injected: d.injected, Dual: d.dual, VerdictDual: d.verdictDual})
	}
	n := max(len(a.clean.sum), len(a.attacked.sum))
	for i := range n {
		cs, cn := at(a.clean, i)
		as, an := at(a.attacked, i)
		if cn == 0 && an == 0 {
			continue
		}
		res.Drift.Step = append(res.Drift.Step, i+1)
		res.Drift.Clean = append(res.Drift.Clean, ratio(cs, cn))
		res.Drift.Attacked = append(res.Drift.Attacked, ratio(as, an))
		res.Drift.CleanN = append(res.Drift.CleanN, cn)
		res.Drift.AttackedN = append(res.Drift.AttackedN, an)
	}
	res.Drift.MeanBefore = ratio(a.before[0], int(a.before[1]))
	res.Drift.MeanAfter = ratio(a.after[0], int(a.after[1]))
	t := a.tracer
	res.Tracer = TracerScore{Tracer: t, Runs: a.tracerN, Precision: ratio(float64(t.TP), t.TP+t.FP), Recall: ratio(float64(t.TP), t.TP+t.FN), HitRate: ratio(float64(t.Hits), t.Calls)}

	// The sample in key order: the same runs give the same folds.
	s := slices.Clone(a.sample)
	slices.SortFunc(s, func(x, y sampled) int { return cmp.Compare(x.key, y.key) })
	smp := Sample{Names: results.FeatureNames}
	for _, r := range s {
		smp.X = append(smp.X, r.x)
		smp.Y = append(smp.Y, r.y)
		smp.Task = append(smp.Task, r.task)
	}
	cr, err := Classify(smp, a.opts.Folds, a.opts.Seed)
	if err != nil {
		res.Why = err.Error()
	} else {
		res.Classifier = cr
	}
	return res
}

func at(d driftSums, i int) (float64, int) {
	if i >= len(d.sum) {
		return 0, 0
	}
	return d.sum[i], d.n[i]
}

func ratio(s float64, n int) float64 {
	if n == 0 {
		return math.NaN()
	}
	return s / float64(n)
}

// num formats a float with the given decimals; "—" for NaN.
func num(x float64, dec int) string {
	if math.IsNaN(x) {
		return "—"
	}
	return strconv.FormatFloat(x, 'f', dec, 64)
}

func itoa(n int) string { return strconv.Itoa(n) }

// LagTable renders the lag per model.
func (r Result) LagTable() Table {
	t := Table{Header: []string{"model", "executed", "with lag", "median", "mean", "max"}}
	for _, l := range r.Lag {
		mx := "—"
		if l.N > 0 {
			mx = itoa(l.Max)
		}
		t.Rows = append(t.Rows, []string{l.Model, itoa(l.Executed), itoa(l.N), num(l.Median, 1), num(l.Mean, 2), mx})
	}
	return t
}

// OutboundTable renders excess outbound calls per model.
func (r Result) OutboundTable() Table {
	t := Table{Header: []string{"model", "clean n", "clean mean", "attacked n", "attacked mean", "excess"}}
	for _, o := range r.Outbound {
		t.Rows = append(t.Rows, []string{o.Model, itoa(o.CleanN), num(o.CleanMean, 2), itoa(o.AttackedN), num(o.AttackedMean, 2), num(o.Excess, 2)})
	}
	return t
}

// DualTable renders dual completion per model.
func (r Result) DualTable() Table {
	t := Table{Header: []string{"model", "attacked", "with forensics", "legit report", "injected action", "dual (transcript)", "dual (verdict)"}}
	for _, d := range r.Dual {
		t.Rows = append(t.Rows, []string{d.Model, itoa(d.Attacked), itoa(d.WithForensics), itoa(d.Legit), itoa(d.Injected), itoa(d.Dual), itoa(d.VerdictDual)})
	}
	return t
}

// TracerTable renders the provenance tracer's score.
func (r Result) TracerTable() Table {
	s := r.Tracer
	return Table{
		Header: []string{"runs", "canary calls", "TP", "FP", "FN", "precision", "recall", "calls traced", "top source right"},
		Rows: [][]string{{itoa(s.Runs), itoa(s.Calls), itoa(s.TP), itoa(s.FP), itoa(s.FN), num(s.Precision, 3), num(s.Recall, 3),
			fmt.Sprintf("%d/%d", s.Hits, s.Calls), fmt.Sprintf("%d/%d", s.Top1, s.Calls)}},
	}
}

// ClassifierTable puts cross-validation and leave-one-task-out side by
// side, then each held-out task.
func (r Result) ClassifierTable() Table {
	t := Table{Header: []string{"evaluation", "held out", "n", "executed", "AUC", "accuracy"}}
	c := r.Classifier
	if c == nil {
		return t
	}
	for _, ev := range []Eval{c.CV, c.LOTO} {
		t.Rows = append(t.Rows, []string{ev.Name, "pooled", itoa(ev.N), itoa(c.Executed), num(ev.AUC, 3), num(ev.Accuracy, 3)})
	}
	for _, ev := range []Eval{c.CV, c.LOTO} {
		for _, f := range ev.Folds {
			t.Rows = append(t.Rows, []string{ev.Name, f.Name, itoa(f.N), itoa(f.Pos), num(f.AUC, 3), num(f.Accuracy, 3)})
		}
	}
	return t
}

// ImportanceTable lists the features, most important first.
func (r Result) ImportanceTable() Table {
	t := Table{Header: []string{"feature", "permutation ΔAUC", "standardized coefficient"}}
	if r.Classifier == nil {
		return t
	}
	for _, im := range r.Classifier.Importance {
		t.Rows = append(t.Rows, []string{im.Feature, num(im.Permutation, 4), num(im.Coefficient, 3)})
	}
	return t
}
