package plot

import (
	"image/color"
	"math"
	"slices"

	gplot "gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Grid is what a heat map shows: its row and column names, the rows top
// first, and per row its cells left to right.
type Grid struct {
	Rows, Cols []string
	Cells      [][]Cell // Cells[row][col], rows in the order of Rows
}

// Cell is one cell of a heat map.
type Cell struct {
	Rate float64 // in [0, 1], the cell's colour; NaN: no runs, drawn grey
	Text []string
}

// Heat draws g as a heat map, white to dark red, each cell with its text;
// xLabel names the columns.
func Heat(f Figure, xLabel string, g Grid) (Figure, error) {
	p := newPlot(f.Title, xLabel, "")
	rows := g.add(p)
	lab := setRowLabels(p, rows)
	w := clampLen(vg.Points(80*float64(len(g.Cols)))+lab.reserve, 4*vg.Inch, 16*vg.Inch)
	h := clampLen(vg.Points(34*float64(len(rows))+90), 2.5*vg.Inch, 30*vg.Inch)
	return render(f, p, w, h)
}

// WriterReader draws g as the writer × reader matrix of the relay tasks:
// writers are the rows, readers the columns.
func WriterReader(f Figure, g Grid) (Figure, error) {
	p := newPlot("Writer × reader", "reader", "writer")
	rows := g.add(p)
	lab := setRowLabels(p, rows)
	w := clampLen(vg.Points(90*float64(len(g.Cols))+20)+lab.reserve, 4*vg.Inch, 16*vg.Inch)
	h := clampLen(vg.Points(40*float64(len(rows))+100), 2.5*vg.Inch, 16*vg.Inch)
	return render(f, p, w, h)
}

// add adds g's cells to p with the columns as X ticks, and returns the row
// names bottom first, as the Y axis counts them.
func (g Grid) add(p *gplot.Plot) []string {
	rows := slices.Clone(g.Rows)
	slices.Reverse(rows) // first row at the top
	hg := &heatGrid{cols: len(g.Cols), rows: len(rows)}
	for ri := range rows {
		for ci, c := range g.Cells[len(rows)-1-ri] {
			hg.cells = append(hg.cells, heatCell{Col: ci, Row: ri, Cell: c})
		}
	}
	p.Add(hg)
	nominal(&p.X, g.Cols)
	return rows
}

// heatColor maps a rate in [0, 1] onto white → dark red.
func heatColor(x float64) color.RGBA {
	x = math.Max(0, math.Min(1, x))
	lerp := func(a, b uint8) uint8 { return uint8(math.Round(float64(a) + x*(float64(b)-float64(a)))) }
	return color.RGBA{lerp(0xff, 0xa5), lerp(0xf5, 0x0f), lerp(0xf0, 0x15), 0xff}
}

// heatCell is one cell of a heat grid at its position.
type heatCell struct {
	Col, Row int
	Cell
}

// heatGrid draws coloured rectangles with their text at integer positions;
// use it with NominalX and NominalY.
type heatGrid struct {
	cols, rows int
	cells      []heatCell
}

var _ gplot.Plotter = (*heatGrid)(nil)
var _ gplot.DataRanger = (*heatGrid)(nil)

// Plot implements plot.Plotter.
func (g *heatGrid) Plot(c draw.Canvas, p *gplot.Plot) {
	tx, ty := p.Transforms(&c)
	sty := draw.TextStyle{
		Color: color.Black, Font: font.From(gplot.DefaultFont, vg.Points(8)),
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
