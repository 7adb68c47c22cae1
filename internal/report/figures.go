package report

import (
	"math"

	"github.com/killchain/killchain/internal/report/plot"
	"github.com/killchain/killchain/internal/stats"
)

// The figures: which runs each counts and what its title and caption say.
// How they look is internal/report/plot's.

// Extras are figure inputs that come from the forensic analysis rather than
// from the runs' counters; empty fields draw no figure.
type Extras struct {
	// Drift holds the mean objective drift per step, e.g. one series for
	// clean and one for attacked runs.
	Drift []plot.Series
	// Importance ranks the trajectory features of the run classifier.
	Importance []plot.Importance
}

// Figure file names (without extension).
const (
	FigStages  = "stages"
	FigSurface = "asr_heatmap"
	// FigAttackFamily and FigEncoding are drawn for studies of library attacks.
	FigAttackFamily = "asr_by_attack_family"
	FigEncoding     = "asr_by_encoding"
	// FigStagesFamily and FigStagesEncoding are the stage figure per
	// attack family and per encoding, drawn for the same studies.
	FigStagesFamily   = "stages_by_attack_family"
	FigStagesEncoding = "stages_by_encoding"
	FigPairs          = "pair_matrix"
	FigTradeoff       = "task_success_vs_asr"
	FigDrift          = "drift"
	FigImportance     = "feature_importance"
)

// maxBars bounds the bars of the stage figure; beyond it bars are pooled by
// model only.
const maxBars = 60

// buildFigures draws every figure there is data for, in a fixed order.
func buildFigures(a *Aggregator, x Extras, z float64) ([]plot.Figure, error) {
	keep, scope := baselineFilter(a)
	var out []plot.Figure
	add := func(f plot.Figure, ok bool, err error) error {
		if err != nil {
			return err
		}
		if ok {
			out = append(out, f)
		}
		return nil
	}
	steps := []func() (plot.Figure, bool, error){
		func() (plot.Figure, bool, error) { return stagesFigure(a, keep, scope) },
		func() (plot.Figure, bool, error) { return surfaceFigure(a, keep, scope) },
	}
	steps = append(steps, attackFigures(a, keep, scope)...)
	steps = append(steps, []func() (plot.Figure, bool, error){
		func() (plot.Figure, bool, error) { return pairFigure(a, keep, scope) },
		func() (plot.Figure, bool, error) { return tradeoffFigure(a, z) },
		func() (plot.Figure, bool, error) { return driftFigure(x.Drift) },
		func() (plot.Figure, bool, error) { return importanceFigure(x.Importance) },
	}...)
	for _, s := range steps {
		f, ok, err := s()
		if err := add(f, ok, err); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// stagesFigure stacks, per task and model, the share of attacked runs whose
// canary stopped at each stage.
func stagesFigure(a *Aggregator, keep func(Cell) bool, scope string) (plot.Figure, bool, error) {
	return stageBars(a, keep, func(c Cell) string { return c.Task }, Cell.Model, FigStages, "Where the canary stopped",
		"Furthest kill-chain stage per task and model or pair, as a share of "+scope+".")
}

// stageBars stacks, per by(c) and model, the share of attacked runs whose
// canary stopped at each stage; beyond maxBars bars it pools by pool(c).
func stageBars(a *Aggregator, keep func(Cell) bool, by, pool func(Cell) string, name, title, intro string) (plot.Figure, bool, error) {
	label := func(c Cell) string { return by(c) + " · " + c.Model() }
	m := buildMatrix(a, keep, label, func(Cell) string { return "" })
	if len(m.rows) > maxBars {
		m = buildMatrix(a, keep, pool, func(Cell) string { return "" })
	}
	var rows []string
	for _, r := range m.rows {
		if m.at(r, "").Runs > 0 {
			rows = append(rows, r)
		}
	}
	if len(rows) == 0 || len(rows) > 4*maxBars {
		return plot.Figure{}, false, nil
	}
	shares := make([][]float64, len(Stages))
	for s := range Stages {
		shares[s] = make([]float64, len(rows))
		for i, r := range rows {
			c := m.at(r, "")
			shares[s][i] = float64(c.LastStage[s]) / float64(c.Runs)
		}
	}
	return drawn(plot.StageBars(plot.Figure{Name: name, Title: title, Caption: intro}, Stages, rows, shares))
}

// drawn is a plot builder's result for the figure builders: drawn, so ok.
func drawn(f plot.Figure, err error) (plot.Figure, bool, error) { return f, err == nil, err }

// surfaceFigure is the ASR heat map of model × surface with k/n per cell.
func surfaceFigure(a *Aggregator, keep func(Cell) bool, scope string) (plot.Figure, bool, error) {
	return heatFigure(a, keep, func(c Cell) string { return c.Surface }, FigSurface, "ASR by model and surface", "surface",
		asrAllLabel+": Executed over "+scope+", per model (or cross-model pair) and surface; each cell "+
			"shows k/n. The tables give the ASR over runs that called the payload tool too.")
}

// attackFigures are the ASR heat maps of model × attack family and model ×
// encoding, drawn when a study planted attacks of the library.
func attackFigures(a *Aggregator, keep func(Cell) bool, scope string) []func() (plot.Figure, bool, error) {
	if !plantedLibrary(a, keep) {
		return nil
	}
	return []func() (plot.Figure, bool, error){
		func() (plot.Figure, bool, error) {
			return stageBars(a, keep, attackFamily, attackFamily, FigStagesFamily, "Where the canary stopped, by attack family",
				"Furthest kill-chain stage per attack family and model or pair, as a share of "+scope+
					" (every task and encoding together; the canary counts plain or encoded).")
		},
		func() (plot.Figure, bool, error) {
			return stageBars(a, keep, attackEncoding, attackEncoding, FigStagesEncoding, "Where the canary stopped, by encoding",
				"Furthest kill-chain stage per chain of encodings (none: in clear) and model or pair, as a share of "+
					scope+" (every task and family together).")
		},
		func() (plot.Figure, bool, error) {
			return heatFigure(a, keep, attackFamily, FigAttackFamily, "ASR by model and attack family", "attack family",
				asrAllLabel+": Executed over "+scope+", per model and attack family (a task's own variant is a "+
					"family of its own); each cell shows k/n.")
		},
		func() (plot.Figure, bool, error) {
			return heatFigure(a, keep, attackEncoding, FigEncoding, "ASR by model and encoding", "encoding",
				asrAllLabel+": Executed over "+scope+", per model and chain of encodings (none: in clear); "+
					"Executed counts the canary plain or encoded. Each cell shows k/n.")
		},
	}
}

// heatFigure is an ASR heat map of model × col with k/n per cell.
func heatFigure(a *Aggregator, keep func(Cell) bool, col func(Cell) string, name, title, colLabel, intro string) (plot.Figure, bool, error) {
	m := buildMatrix(a, keep, modelLabel, col)
	if len(m.rows) == 0 || len(m.cols) == 0 {
		return plot.Figure{}, false, nil
	}
	g := heatGrid(m, func(c *Counts) plot.Cell {
		cell := plot.Cell{Rate: math.NaN(), Text: []string{noneCell}}
		if c.Executed.N > 0 {
			cell.Rate = float64(c.Executed.K) / float64(c.Executed.N)
			cell.Text = []string{kn(c.Executed.K, c.Executed.N), pct(c.Executed.K, c.Executed.N)}
		}
		return cell
	})
	return drawn(plot.Heat(plot.Figure{Name: name, Title: title, Caption: intro}, colLabel, g))
}

// heatGrid is a matrix as a heat map's grid, each cell drawn by cell.
func heatGrid(m matrix, cell func(*Counts) plot.Cell) plot.Grid {
	g := plot.Grid{Rows: m.rows, Cols: m.cols}
	for _, r := range m.rows {
		row := make([]plot.Cell, 0, len(m.cols))
		for _, c := range m.cols {
			row = append(row, cell(m.at(r, c)))
		}
		g.Cells = append(g.Cells, row)
	}
	return g
}

// pairFigure is the writer × reader matrix of the relay tasks.
func pairFigure(a *Aggregator, keep func(Cell) bool, scope string) (plot.Figure, bool, error) {
	m := buildMatrix(a, func(c Cell) bool { return keep(c) && isRelay(c) },
		func(c Cell) string { return c.ModelA }, func(c Cell) string { return c.ModelB })
	if len(m.rows) == 0 {
		return plot.Figure{}, false, nil
	}
	g := heatGrid(m, func(c *Counts) plot.Cell {
		cell := plot.Cell{Rate: math.NaN(), Text: []string{noneCell}}
		if c.Executed.N > 0 {
			cell.Rate = float64(c.Executed.K) / float64(c.Executed.N)
			cell.Text = []string{"E " + kn(c.Executed.K, c.Executed.N)}
			if c.Persisted.N > 0 {
				cell.Text = append(cell.Text, "P "+kn(c.Persisted.K, c.Persisted.N))
			}
		}
		return cell
	})
	return drawn(plot.WriterReader(plot.Figure{Name: FigPairs, Title: "Writer × reader matrix",
		Caption: "Relay tasks, " + scope + ": colour is Executed; E is Executed k/n, P is Persisted k/n (memory relays only)."}, g))
}

// tradeoffFigure plots task success on clean controls against ASR, one
// point per model, with Wilson intervals on both axes.
func tradeoffFigure(a *Aggregator, z float64) (plot.Figure, bool, error) {
	single := func(c Cell) bool { return isBaseline(c) && (c.ModelB == "" || c.ModelB == c.ModelA) }
	keys, counts := a.Rollup(single, func(c Cell) Cell { return Cell{ModelA: c.ModelA, Attacked: c.Attacked} })
	var pts []plot.Point
	for _, k := range keys {
		if !k.Attacked {
			continue
		}
		at, cl := counts[k], counts[Cell{ModelA: k.ModelA}]
		if at.Executed.N == 0 || cl == nil || cl.Runs == 0 {
			continue
		}
		x := float64(cl.TaskSuccess) / float64(cl.Runs)
		y := float64(at.Executed.K) / float64(at.Executed.N)
		xlo, xhi := stats.Wilson(cl.TaskSuccess, cl.Runs, z)
		ylo, yhi := stats.Wilson(at.Executed.K, at.Executed.N, z)
		pts = append(pts, plot.Point{Label: k.ModelA, X: x, XLo: xlo, XHi: xhi, Y: y, YLo: ylo, YHi: yhi})
	}
	if len(pts) == 0 {
		return plot.Figure{}, false, nil
	}
	return drawn(plot.Scatter(plot.Figure{Name: FigTradeoff, Title: "Task success vs ASR",
		Caption: "One point per model without a defense (same-model pairs pooled), with Wilson intervals on both axes."},
		"task success on clean controls", asrAllLabel, pts))
}

// driftFigure draws the per-step drift series, if any.
func driftFigure(series []plot.Series) (plot.Figure, bool, error) {
	return plot.Lines(plot.Figure{Name: FigDrift, Title: "Objective drift per step",
		Caption: "Mean distance of each step from the task description, clean against attacked runs."},
		"step", "TF-IDF cosine distance from the task", series)
}

// importanceFigure ranks the classifier's features, largest at the top.
func importanceFigure(imp []plot.Importance) (plot.Figure, bool, error) {
	return plot.FeatureBars(plot.Figure{Name: FigImportance, Title: "Feature importance",
		Caption: "Trajectory features of the run-level classifier, by importance."}, imp)
}
