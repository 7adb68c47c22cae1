package report

import (
	"bytes"
	"fmt"
	"image/color"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Figure is one rendered figure: SVG for the HTML report and the paper, PNG
// for a quick look.
type Figure struct {
	// Name is the file name without extension, e.g. "asr_heatmap".
	Name    string
	Title   string
	Caption string
	SVG     []byte
	PNG     []byte
}

// render draws p at w × h into SVG and PNG. Both are deterministic: gonum's
// SVG canvas writes no timestamp and names fonts without embedding them.
func render(name, title, caption string, p *plot.Plot, w, h vg.Length) (Figure, error) {
	f := Figure{Name: name, Title: title, Caption: caption}
	for _, format := range []string{"svg", "png"} {
		wt, err := p.WriterTo(w, h, format)
		if err != nil {
			return f, fmt.Errorf("figure %s: %w", name, err)
		}
		var b bytes.Buffer
		if _, err := wt.WriteTo(&b); err != nil {
			return f, fmt.Errorf("figure %s: %w", name, err)
		}
		if format == "svg" {
			f.SVG = svgFonts(b.Bytes())
		} else {
			f.PNG = b.Bytes()
		}
	}
	return f, nil
}

// rendered is render for the figure builders: drawn, so ok.
func rendered(name, title, caption string, p *plot.Plot, w, h vg.Length) (Figure, bool, error) {
	f, err := render(name, title, caption, p, w, h)
	return f, err == nil, err
}

// Stage colours, lowest first (none … executed): light to alarming.
var stageColors = []color.RGBA{
	{0xd9, 0xd9, 0xd9, 0xff}, // none
	{0x9e, 0xca, 0xe1, 0xff}, // exposed
	{0xfd, 0xd0, 0xa2, 0xff}, // persisted
	{0xfd, 0x8d, 0x3c, 0xff}, // relayed
	{0xcb, 0x18, 0x1d, 0xff}, // executed
}

// heatColor maps a rate in [0, 1] onto white → dark red.
func heatColor(x float64) color.RGBA {
	x = math.Max(0, math.Min(1, x))
	lerp := func(a, b uint8) uint8 { return uint8(math.Round(float64(a) + x*(float64(b)-float64(a)))) }
	return color.RGBA{lerp(0xff, 0xa5), lerp(0xf5, 0x0f), lerp(0xf0, 0x15), 0xff}
}

// heatCell is one cell of a heat grid.
type heatCell struct {
	Col, Row int
	Rate     float64 // NaN: no runs, drawn grey
	Text     []string
}

// heatGrid draws coloured rectangles with their text at integer positions;
// use it with NominalX and NominalY.
type heatGrid struct {
	cols, rows int
	cells      []heatCell
}

var _ plot.Plotter = (*heatGrid)(nil)
var _ plot.DataRanger = (*heatGrid)(nil)

// Plot implements plot.Plotter.
func (g *heatGrid) Plot(c draw.Canvas, p *plot.Plot) {
	tx, ty := p.Transforms(&c)
	sty := draw.TextStyle{
		Color: color.Black, Font: font.From(plot.DefaultFont, vg.Points(8)),
		XAlign: draw.XCenter, YAlign: draw.YCenter, Handler: p.Title.TextStyle.Handler,
	}
	for _, cell := range g.cells {
		x0, x1 := tx(float64(cell.Col)-0.5), tx(float64(cell.Col)+0.5)
		y0, y1 := ty(float64(cell.Row)-0.5), ty(float64(cell.Row)+0.5)
		fill := color.RGBA{0xee, 0xee, 0xee, 0xff}
		if !math.IsNaN(cell.Rate) {
			fill = heatColor(cell.Rate)
		}
		c.FillPolygon(fill, []vg.Point{{X: x0, Y: y0}, {X: x1, Y: y0}, {X: x1, Y: y1}, {X: x0, Y: y1}})
		c.StrokeLines(draw.LineStyle{Color: color.White, Width: vg.Points(1)},
			[]vg.Point{{X: x0, Y: y0}, {X: x1, Y: y0}, {X: x1, Y: y1}, {X: x0, Y: y1}, {X: x0, Y: y0}})
		ts := sty
		if !math.IsNaN(cell.Rate) && cell.Rate > 0.55 {
			ts.Color = color.White
		}
		lh := ts.Font.Size * 1.2
		mid := (y0 + y1) / 2
		n := len(cell.Text)
		for i, line := range cell.Text {
			y := mid + lh*vg.Length(float64(n-1)/2-float64(i))
			c.FillText(ts, vg.Point{X: (x0 + x1) / 2, Y: y}, line)
		}
	}
}

// DataRange implements plot.DataRanger.
func (g *heatGrid) DataRange() (xmin, xmax, ymin, ymax float64) {
	return -0.5, float64(g.cols) - 0.5, -0.5, float64(g.rows) - 0.5
}

// newPlot returns a plot with a title and the report's defaults.
func newPlot(title, x, y string) *plot.Plot {
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text = x
	p.Y.Label.Text = y
	p.Title.TextStyle.Font.Size = vg.Points(12)
	return p
}

// nominal sets category ticks on an axis at 0, 1, …
func nominal(a *plot.Axis, names []string) {
	ticks := make([]plot.Tick, len(names))
	for i, n := range names {
		ticks[i] = plot.Tick{Value: float64(i), Label: n}
	}
	a.Tick.Marker = plot.ConstantTicks(ticks)
	a.Tick.Length = 0
	a.Width = 0
}

// valuesOf turns counts into plotter.Values.
func valuesOf(xs []float64) plotter.Values { return plotter.Values(xs) }

// ciPoints are points with asymmetric error bars in x and y.
type ciPoints struct {
	plotter.XYs
	xerr, yerr [][2]float64 // low and high distances
}

func (c ciPoints) XError(i int) (float64, float64) { return c.xerr[i][0], c.xerr[i][1] }
func (c ciPoints) YError(i int) (float64, float64) { return c.yerr[i][0], c.yerr[i][1] }

// clampLen keeps a plot dimension between lo and hi.
func clampLen(x, lo, hi vg.Length) vg.Length { return max(lo, min(hi, x)) }
