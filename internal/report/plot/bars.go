package plot

import (
	"cmp"
	"fmt"
	"image/color"
	"math"
	"slices"
	"strings"

	gplot "gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
)

// Stage colours, lowest first (none … executed): light to alarming.
var stageColors = []color.RGBA{
	{0xd9, 0xd9, 0xd9, 0xff}, // none
	{0x9e, 0xca, 0xe1, 0xff}, // exposed
	{0xfd, 0xd0, 0xa2, 0xff}, // persisted
	{0xfd, 0x8d, 0x3c, 0xff}, // relayed
	{0xcb, 0x18, 0x1d, 0xff}, // executed
}

// StageBars stacks, per row, the share of attacked runs whose canary
// stopped at each stage: stages names the stages lowest first (none …
// executed), shares[s][i] is stage s's share of row i, and rows are listed
// top first.
func StageBars(f Figure, stages, rows []string, shares [][]float64) (Figure, error) {
	rows = slices.Clone(rows)
	slices.Reverse(rows) // first row at the top
	p := newPlot(f.Title, "share of attacked runs", "")
	var prev *plotter.BarChart
	for s, stage := range stages {
		vals := slices.Clone(shares[s])
		slices.Reverse(vals)
		b, err := plotter.NewBarChart(plotter.Values(vals), vg.Points(10))
		if err != nil {
			return Figure{}, fmt.Errorf("%s figure: %w", f.Name, err)
		}
		b.Horizontal = true
		b.Color = stageColors[s]
		b.LineStyle.Width = 0
		if prev != nil {
			b.StackOn(prev)
		}
		prev = b
		p.Add(b)
		p.Legend.Add(stage, b)
	}
	setRowLabels(p, rows)
	p.X.Min, p.X.Max = 0, 1.32
	p.X.Tick.Marker = gplot.ConstantTicks{{Value: 0, Label: "0"}, {Value: 0.25, Label: "25%"},
		{Value: 0.5, Label: "50%"}, {Value: 0.75, Label: "75%"}, {Value: 1, Label: "100%"}}
	p.Legend.Top = true
	h := clampLen(vg.Points(14*float64(len(rows))+90), 3*vg.Inch, 40*vg.Inch)
	return render(f, p, 8*vg.Inch, h)
}

// Importance is one feature's weight in a classifier.
type Importance struct {
	Feature string
	Value   float64
}

// maxFeatures bounds the importance figure.
const maxFeatures = 25

// FeatureBars ranks a classifier's features, largest at the top; ok is
// false, and nothing drawn, when no feature carries weight.
func FeatureBars(f Figure, imp []Importance) (_ Figure, ok bool, _ error) {
	if !slices.ContainsFunc(imp, func(x Importance) bool { return math.Abs(x.Value) > 1e-9 }) {
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
	for i, x := range imp {
		vals[i], names[i] = x.Value, x.Feature
	}
	b, err := plotter.NewBarChart(plotter.Values(vals), vg.Points(9))
	if err != nil {
		return Figure{}, false, fmt.Errorf("importance figure: %w", err)
	}
	b.Horizontal = true
	b.Color = color.RGBA{0x31, 0x82, 0xbd, 0xff}
	b.LineStyle.Width = 0
	p := newPlot(f.Title, "importance", "")
	p.Add(b)
	nominal(&p.Y, names)
	h := clampLen(vg.Points(14*float64(len(names))+80), 3*vg.Inch, 12*vg.Inch)
	return drawn(render(f, p, 7*vg.Inch, h))
}

// drawn is render's result for the builders that may draw nothing: drawn,
// so ok.
func drawn(f Figure, err error) (Figure, bool, error) { return f, err == nil, err }
