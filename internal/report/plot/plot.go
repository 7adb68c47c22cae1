// Package plot draws the report's figures with gonum/plot: stacked stage
// bars, heat maps, scatter points with intervals, lines and bands, the
// probes' AUROC per layer. It draws what it is given: which runs count,
// and the words of each figure's title and caption, are the report's
// (internal/report); how a figure looks (colours, sizes, fonts, where the
// row labels go) is decided here. Every figure is deterministic SVG and
// PNG.
package plot

import (
	"bytes"
	"fmt"

	gplot "gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
)

// Figure is one rendered figure: SVG for the HTML report and the paper, PNG
// for a quick look. A caller names it (Name, Title, Caption) and a builder
// of this package draws it (SVG, PNG).
type Figure struct {
	// Name is the file name without extension, e.g. "asr_heatmap".
	Name    string
	Title   string
	Caption string
	SVG     []byte
	PNG     []byte
}

// render draws p at w × h into f's SVG and PNG. Both are deterministic:
// gonum's SVG canvas writes no timestamp and names fonts without embedding
// them.
func render(f Figure, p *gplot.Plot, w, h vg.Length) (Figure, error) {
	for _, format := range []string{"svg", "png"} {
		wt, err := p.WriterTo(w, h, format)
		if err != nil {
			return f, fmt.Errorf("figure %s: %w", f.Name, err)
		}
		var b bytes.Buffer
		if _, err := wt.WriteTo(&b); err != nil {
			return f, fmt.Errorf("figure %s: %w", f.Name, err)
		}
		if format == "svg" {
			f.SVG = svgFonts(b.Bytes())
		} else {
			f.PNG = b.Bytes()
		}
	}
	return f, nil
}

// newPlot returns a plot with a title and the report's defaults.
func newPlot(title, x, y string) *gplot.Plot {
	p := gplot.New()
	p.Title.Text = title
	p.X.Label.Text = x
	p.Y.Label.Text = y
	p.Title.TextStyle.Font.Size = vg.Points(12)
	return p
}

// nominal sets category ticks on an axis at 0, 1, …
func nominal(a *gplot.Axis, names []string) {
	ticks := make([]gplot.Tick, len(names))
	for i, n := range names {
		ticks[i] = gplot.Tick{Value: float64(i), Label: n}
	}
	a.Tick.Marker = gplot.ConstantTicks(ticks)
	a.Tick.Length = 0
	a.Width = 0
}

// clampLen keeps a plot dimension between lo and hi.
func clampLen(x, lo, hi vg.Length) vg.Length { return max(lo, min(hi, x)) }
