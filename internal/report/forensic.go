package report

import (
	"math"
	"strings"

	"github.com/killchain/killchain/internal/analysis"
	"github.com/killchain/killchain/internal/report/plot"
	"github.com/killchain/killchain/internal/results"
)

// forensicAnalyzer feeds package analysis and turns its result into report
// sections: lag, excess outbound calls, dual completion, the provenance
// tracer, the classifier (cross-validation beside leave-one-task-out), its
// feature importance and the audit.
type forensicAnalyzer struct {
	acc     *analysis.Accumulator
	harness int // runs with harness labels
}

// classifierSample bounds the runs the classifier is fitted on.
const classifierSample = 20_000

func newAnalyzer(string) analyzer {
	return &forensicAnalyzer{acc: analysis.NewAccumulator(analysis.Options{MaxSample: classifierSample})}
}

func (f *forensicAnalyzer) wantsForensics() bool { return true }

func (f *forensicAnalyzer) add(r *results.Run) string {
	f.acc.Add(r)
	if r.Harness == nil {
		return ""
	}
	f.harness++
	// Imported logs are small: audit each run alone to flag it.
	a := analysis.NewAuditor()
	a.Add(r)
	var kinds []string
	for _, k := range a.Result().Kinds {
		if k.Count > 0 {
			kinds = append(kinds, k.Kind)
		}
	}
	return strings.Join(kinds, ", ")
}

// aTable converts an analysis table.
func aTable(t analysis.Table) Table { return Table{Header: t.Header, Rows: t.Rows} }

func (f *forensicAnalyzer) finish(int) ([]section, Extras) {
	res := f.acc.Result()
	var secs []section
	add := func(id, title, intro, csvName string, t analysis.Table) {
		tb := aTable(t)
		s := section{ID: id, Title: title, Intro: intro, Table: tb}
		if csvName != "" {
			s.CSVName, s.CSV = csvName, tb
		}
		secs = append(secs, s)
	}
	if f.harness > 0 {
		add("audit", "Audit of the labels", "Runs whose labels contradict each other or our stage definitions, "+
			"by kind; \"harness labels\" kinds read the imported log's own columns. A kind with 0 runs was "+
			"checked and not found.", "audit.csv", res.Audit.Table(true))
	} else {
		add("audit", "Audit of the stages", "Runs whose stage flags contradict our stage definitions, by kind "+
			"(0: checked and not found).", "audit.csv", res.Audit.Table(false))
	}
	add("lag", "Exposure-to-execution lag", "Steps from the first exposure of the canary to its first "+
		"outbound call, over executed attacked runs with a known lag, per model or pair.", "lag.csv", res.LagTable())
	add("outbound", "Excess outbound calls", "Outbound calls carried out per run, attacked against the same "+
		"model's clean controls.", "outbound.csv", res.OutboundTable())
	add("dual", "Dual completion", "Attacked runs that sent the legitimate report and carried out an "+
		"injected action (from the transcript), beside the verifiers' reading (task success and Executed or "+
		"attack goal).", "dual.csv", res.DualTable())
	if res.Tracer.Runs > 0 {
		add("tracer", "Provenance tracer", "Each outbound argument traced to earlier tool results and memory by "+
			"token overlap, scored against the canary's known path.", "tracer.csv", res.TracerTable())
	}
	if res.Classifier != nil {
		add("classifier", "Run classifier: cross-validation vs leave-one-task-out", "A logistic regression "+
			"of Executed over the runs' trajectory features, evaluated by stratified 5-fold cross-validation "+
			"and by holding out each task in turn: the gap is how much the classifier learned the tasks rather "+
			"than the attack.", "classifier.csv", res.ClassifierTable())
		add("importance", "Feature importance", "Mean drop of held-out AUC when a feature is shuffled, and "+
			"the standardized coefficient.", "importance.csv", res.ImportanceTable())
	} else if res.Why != "" && res.Runs > 0 {
		secs = append(secs, section{ID: "classifier", Title: "Run classifier", Intro: "Not fitted: " + res.Why + ".",
			Table: Table{Header: []string{"evaluation"}}})
	}
	var x Extras
	d := res.Drift
	for _, s := range []struct {
		name string
		ys   []float64
	}{{"clean", d.Clean}, {"attacked", d.Attacked}} {
		var ser plot.Series
		ser.Name = s.name
		for i, y := range s.ys {
			if !math.IsNaN(y) {
				ser.X = append(ser.X, float64(d.Step[i]))
				ser.Y = append(ser.Y, y)
			}
		}
		if len(ser.X) > 0 {
			x.Drift = append(x.Drift, ser)
		}
	}
	if res.Classifier != nil {
		for _, im := range res.Classifier.Importance {
			x.Importance = append(x.Importance, plot.Importance{Feature: im.Feature, Value: im.Permutation})
		}
	}
	return secs, x
}
