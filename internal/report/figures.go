package report

import (
	"cmp"
	"fmt"
	"image/color"
	"math"
	"slices"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/killchain/killchain/internal/stats"
)

// Series is one line of a per-step figure (drift per step, for instance).
type Series struct {
	Name string
	X, Y []float64
}

// Importance is one feature's weight in a classifier.
type Importance struct {
	Feature string
	Value   float64
}

// Extras are figure inputs that come from the forensic analysis rather than
// from the runs' counters; empty fields draw no figure.
type Extras struct {
	// Drift holds the mean objective drift per step, e.g. one series for
	// clean and one for attacked runs.
	Drift []Series
	// Importance ranks the trajectory features of the run classifier.
	Importance []Importance
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
func buildFigures(a *Aggregator, x Extras, z float64) ([]Figure, error) {
	keep, scope := baselineFilter(a)
	var out []Figure
	add := func(f Figure, ok bool, err error) error {
		if err != nil {
			return err
		}
		if ok {
			out = append(out, f)
		}
		return nil
	}
	steps := []func() (Figure, bool, error){
		func() (Figure, bool, error) { return stagesFigure(a, keep, scope) },
		func() (Figure, bool, error) { return surfaceFigure(a, keep, scope) },
	}
	steps = append(steps, attackFigures(a, keep, scope)...)
	steps = append(steps, []func() (Figure, bool, error){
		func() (Figure, bool, error) { return pairFigure(a, keep, scope) },
		func() (Figure, bool, error) { return tradeoffFigure(a, z) },
		func() (Figure, bool, error) { return driftFigure(x.Drift) },
		func() (Figure, bool, error) { return importanceFigure(x.Importance) },
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
func stagesFigure(a *Aggregator, keep func(Cell) bool, scope string) (Figure, bool, error) {
	return stageBars(a, keep, func(c Cell) string { return c.Task }, Cell.Model, FigStages, "Where the canary stopped",
		"Furthest kill-chain stage per task and model or pair, as a share of "+scope+".")
}

// stageBars stacks, per by(c) and model, the share of attacked runs whose
// canary stopped at each stage; beyond maxBars bars it pools by pool(c).
func stageBars(a *Aggregator, keep func(Cell) bool, by, pool func(Cell) string, name, title, intro string) (Figure, bool, error) {
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
		return Figure{}, false, nil
	}
	slices.Reverse(rows) // first row at the top
	p := newPlot(title, "share of attacked runs", "")
	var prev *plotter.BarChart
	for s := range Stages {
		vals := make([]float64, len(rows))
		for i, r := range rows {
			c := m.at(r, "")
			vals[i] = float64(c.LastStage[s]) / float64(c.Runs)
		}
		b, err := plotter.NewBarChart(valuesOf(vals), vg.Points(10))
		if err != nil {
			return Figure{}, false, fmt.Errorf("%s figure: %w", name, err)
		}
		b.Horizontal = true
		b.Color = stageColors[s]
		b.LineStyle.Width = 0
		if prev != nil {
			b.StackOn(prev)
		}
		prev = b
		p.Add(b)
		p.Legend.Add(Stages[s], b)
	}
	setRowLabels(p, rows)
	p.X.Min, p.X.Max = 0, 1.32
	p.X.Tick.Marker = plot.ConstantTicks{{Value: 0, Label: "0"}, {Value: 0.25, Label: "25%"},
		{Value: 0.5, Label: "50%"}, {Value: 0.75, Label: "75%"}, {Value: 1, Label: "100%"}}
	p.Legend.Top = true
	h := clampLen(vg.Points(14*float64(len(rows))+90), 3*vg.Inch, 40*vg.Inch)
	return rendered(name, title, intro, p, 8*vg.Inch, h)
}

// surfaceFigure is the ASR heat map of model × surface with k/n per cell.
func surfaceFigure(a *Aggregator, keep func(Cell) bool, scope string) (Figure, bool, error) {
	return heatFigure(a, keep, func(c Cell) string { return c.Surface }, FigSurface, "ASR by model and surface", "surface",
		asrAllLabel+": Executed over "+scope+", per model (or cross-model pair) and surface; each cell "+
			"shows k/n. The tables give the ASR over runs that called the payload tool too.")
}

// attackFigures are the ASR heat maps of model × attack family and model ×
// encoding, drawn when a study planted attacks of the library.
func attackFigures(a *Aggregator, keep func(Cell) bool, scope string) []func() (Figure, bool, error) {
	if !plantedLibrary(a, keep) {
		return nil
	}
	return []func() (Figure, bool, error){
		func() (Figure, bool, error) {
			return stageBars(a, keep, attackFamily, attackFamily, FigStagesFamily, "Where the canary stopped, by attack family",
				"Furthest kill-chain stage per attack family and model or pair, as a share of "+scope+
					" (every task and encoding together; the canary counts plain or encoded).")
		},
		func() (Figure, bool, error) {
			return stageBars(a, keep, attackEncoding, attackEncoding, FigStagesEncoding, "Where the canary stopped, by encoding",
				"Furthest kill-chain stage per chain of encodings (none: in clear) and model or pair, as a share of "+
					scope+" (every task and family together).")
		},
		func() (Figure, bool, error) {
			return heatFigure(a, keep, attackFamily, FigAttackFamily, "ASR by model and attack family", "attack family",
				asrAllLabel+": Executed over "+scope+", per model and attack family (a task's own variant is a "+
					"family of its own); each cell shows k/n.")
		},
		func() (Figure, bool, error) {
			return heatFigure(a, keep, attackEncoding, FigEncoding, "ASR by model and encoding", "encoding",
				asrAllLabel+": Executed over "+scope+", per model and chain of encodings (none: in clear); "+
					"Executed counts the canary plain or encoded. Each cell shows k/n.")
		},
	}
}

// heatFigure is an ASR heat map of model × col with k/n per cell.
func heatFigure(a *Aggregator, keep func(Cell) bool, col func(Cell) string, name, title, colLabel, intro string) (Figure, bool, error) {
	m := buildMatrix(a, keep, modelLabel, col)
	if len(m.rows) == 0 || len(m.cols) == 0 {
		return Figure{}, false, nil
	}
	g := &heatGrid{cols: len(m.cols), rows: len(m.rows)}
	rows := slices.Clone(m.rows)
	slices.Reverse(rows)
	for ri, r := range rows {
		for ci, col := range m.cols {
			c := m.at(r, col)
			cell := heatCell{Col: ci, Row: ri, Rate: math.NaN(), Text: []string{noneCell}}
			if c.Runs > 0 {
				cell.Rate = float64(c.Executed.K) / float64(c.Runs)
				cell.Text = []string{kn(c.Executed.K, c.Runs), pct(c.Executed.K, c.Runs)}
			}
			g.cells = append(g.cells, cell)
		}
	}
	p := newPlot(title, colLabel, "")
	p.Add(g)
	nominal(&p.X, m.cols)
	lab := setRowLabels(p, rows)
	w := clampLen(vg.Points(80*float64(len(m.cols)))+lab.reserve, 4*vg.Inch, 16*vg.Inch)
	h := clampLen(vg.Points(34*float64(len(rows))+90), 2.5*vg.Inch, 30*vg.Inch)
	return rendered(name, title, intro, p, w, h)
}

// pairFigure is the writer × reader matrix of the relay tasks.
func pairFigure(a *Aggregator, keep func(Cell) bool, scope string) (Figure, bool, error) {
	m := buildMatrix(a, func(c Cell) bool { return keep(c) && isRelay(c) },
		func(c Cell) string { return c.ModelA }, func(c Cell) string { return c.ModelB })
	if len(m.rows) == 0 {
		return Figure{}, false, nil
	}
	rows := slices.Clone(m.rows)
	slices.Reverse(rows)
	g := &heatGrid{cols: len(m.cols), rows: len(rows)}
	for ri, w := range rows {
		for ci, r := range m.cols {
			c := m.at(w, r)
			cell := heatCell{Col: ci, Row: ri, Rate: math.NaN(), Text: []string{noneCell}}
			if c.Executed.N > 0 {
				cell.Rate = float64(c.Executed.K) / float64(c.Executed.N)
				cell.Text = []string{"E " + kn(c.Executed.K, c.Executed.N)}
				if c.Persisted.N > 0 {
					cell.Text = append(cell.Text, "P "+kn(c.Persisted.K, c.Persisted.N))
				}
			}
			g.cells = append(g.cells, cell)
		}
	}
	p := newPlot("Writer × reader", "reader", "writer")
	p.Add(g)
	nominal(&p.X, m.cols)
	lab := setRowLabels(p, rows)
	w := clampLen(vg.Points(90*float64(len(m.cols))+20)+lab.reserve, 4*vg.Inch, 16*vg.Inch)
	h := clampLen(vg.Points(40*float64(len(rows))+100), 2.5*vg.Inch, 16*vg.Inch)
	return rendered(FigPairs, "Writer × reader matrix",
		"Relay tasks, "+scope+": colour is Executed; E is Executed k/n, P is Persisted k/n (memory relays only).", p, w, h)
}

// tradeoffFigure plots task success on clean controls against ASR, one
// point per model, with Wilson intervals on both axes.
func tradeoffFigure(a *Aggregator, z float64) (Figure, bool, error) {
	single := func(c Cell) bool { return isBaseline(c) && (c.ModelB == "" || c.ModelB == c.ModelA) }
	keys, counts := a.Rollup(single, func(c Cell) Cell { return Cell{ModelA: c.ModelA, Attacked: c.Attacked} })
	var pts ciPoints
	var labels []string
	for _, k := range keys {
		if !k.Attacked {
			continue
		}
		at, cl := counts[k], counts[Cell{ModelA: k.ModelA}]
		if at.Runs == 0 || cl == nil || cl.Runs == 0 {
			continue
		}
		x := float64(cl.TaskSuccess) / float64(cl.Runs)
		y := float64(at.Executed.K) / float64(at.Runs)
		xlo, xhi := stats.Wilson(cl.TaskSuccess, cl.Runs, z)
		ylo, yhi := stats.Wilson(at.Executed.K, at.Runs, z)
		pts.XYs = append(pts.XYs, plotter.XY{X: x, Y: y})
		pts.xerr = append(pts.xerr, [2]float64{x - xlo, xhi - x})
		pts.yerr = append(pts.yerr, [2]float64{y - ylo, yhi - y})
		labels = append(labels, k.ModelA)
	}
	if len(labels) == 0 {
		return Figure{}, false, nil
	}
	p := newPlot("Task success vs ASR", "task success on clean controls", asrAllLabel)
	sc, err := plotter.NewScatter(pts)
	if err != nil {
		return Figure{}, false, fmt.Errorf("tradeoff figure: %w", err)
	}
	sc.GlyphStyle.Shape = draw.CircleGlyph{}
	sc.GlyphStyle.Radius = vg.Points(3.5)
	sc.GlyphStyle.Color = color.RGBA{0xcb, 0x18, 0x1d, 0xff}
	xe, err := plotter.NewXErrorBars(pts)
	if err != nil {
		return Figure{}, false, fmt.Errorf("tradeoff figure: %w", err)
	}
	ye, err := plotter.NewYErrorBars(pts)
	if err != nil {
		return Figure{}, false, fmt.Errorf("tradeoff figure: %w", err)
	}
	xe.Color, ye.Color = color.Gray{0x99}, color.Gray{0x99}
	// Models on the same point share one label.
	var lxy plotter.XYs
	var ltext []string
	for i, xy := range pts.XYs {
		j := slices.Index(lxy, xy)
		if j < 0 {
			lxy, ltext = append(lxy, xy), append(ltext, labels[i])
			continue
		}
		ltext[j] += ", " + labels[i]
	}
	lb, err := plotter.NewLabels(plotter.XYLabels{XYs: lxy, Labels: ltext})
	if err != nil {
		return Figure{}, false, fmt.Errorf("tradeoff figure: %w", err)
	}
	lb.Offset = vg.Point{X: vg.Points(5), Y: vg.Points(3)}
	p.Add(xe, ye, sc, lb)
	p.X.Min, p.X.Max, p.Y.Min, p.Y.Max = 0, 1.15, 0, 1.05
	p.Add(plotter.NewGrid())
	return rendered(FigTradeoff, "Task success vs ASR",
		"One point per model without a defense (same-model pairs pooled), with Wilson intervals on both axes.",
		p, 6*vg.Inch, 5*vg.Inch)
}

// driftFigure draws the per-step drift series, if any.
func driftFigure(series []Series) (Figure, bool, error) {
	p := newPlot("Objective drift per step", "step", "TF-IDF cosine distance from the task")
	n := 0
	for i, s := range series {
		if len(s.X) == 0 || len(s.X) != len(s.Y) {
			continue
		}
		xy := make(plotter.XYs, len(s.X))
		for j := range s.X {
			xy[j] = plotter.XY{X: s.X[j], Y: s.Y[j]}
		}
		l, sc, err := plotter.NewLinePoints(xy)
		if err != nil {
			return Figure{}, false, fmt.Errorf("drift figure: %w", err)
		}
		col := []color.Color{color.RGBA{0x31, 0x82, 0xbd, 0xff}, color.RGBA{0xcb, 0x18, 0x1d, 0xff},
			color.RGBA{0x31, 0xa3, 0x54, 0xff}, color.Gray{0x55}}[i%4]
		l.Color, sc.Color = col, col
		l.Width = vg.Points(1.5)
		p.Add(l, sc)
		p.Legend.Add(s.Name, l, sc)
		n++
	}
	if n == 0 {
		return Figure{}, false, nil
	}
	p.Legend.Top = true
	p.Add(plotter.NewGrid())
	return rendered(FigDrift, "Objective drift per step",
		"Mean distance of each step from the task description, clean against attacked runs.", p, 7*vg.Inch, 4*vg.Inch)
}

// maxFeatures bounds the importance figure.
const maxFeatures = 25

// importanceFigure ranks the classifier's features, largest at the top.
func importanceFigure(imp []Importance) (Figure, bool, error) {
	if !slices.ContainsFunc(imp, func(f Importance) bool { return math.Abs(f.Value) > 1e-9 }) {
		return Figure{}, false, nil // no feature carries weight: no empty figure
	}
	imp = slices.Clone(imp)
	slices.SortStableFunc(imp, func(a, b Importance) int {
		return cmp.Or(cmp.Compare(math.Abs(b.Value), math.Abs(a.Value)), strings.Compare(a.Feature, b.Feature))
	})
	if len(imp) > maxFeatures {
		imp = imp[:maxFeatures]
	}
	slices.Reverse(imp)
	vals := make([]float64, len(imp))
	names := make([]string, len(imp))
	for i, f := range imp {
		vals[i], names[i] = f.Value, f.Feature
	}
	b, err := plotter.NewBarChart(valuesOf(vals), vg.Points(9))
	if err != nil {
		return Figure{}, false, fmt.Errorf("importance figure: %w", err)
	}
	b.Horizontal = true
	b.Color = color.RGBA{0x31, 0x82, 0xbd, 0xff}
	b.LineStyle.Width = 0
	p := newPlot("Feature importance", "importance", "")
	p.Add(b)
	nominal(&p.Y, names)
	h := clampLen(vg.Points(14*float64(len(names))+80), 3*vg.Inch, 12*vg.Inch)
	return rendered(FigImportance, "Feature importance",
		"Trajectory features of the run-level classifier, by importance.", p, 7*vg.Inch, h)
}
