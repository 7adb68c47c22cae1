package plot

import (
	"fmt"
	"image/color"
	"slices"

	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
)

// Series is one line of a per-step figure (drift per step, for instance).
type Series struct {
	Name string
	X, Y []float64
}

// Lines draws each series as a line with points, in a colour of its own;
// a series without points, or with X and Y of different lengths, is left
// out, and ok is false when none is left.
func Lines(f Figure, xLabel, yLabel string, series []Series) (_ Figure, ok bool, _ error) {
	p := newPlot(f.Title, xLabel, yLabel)
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
			return Figure{}, false, fmt.Errorf("%s figure: %w", f.Name, err)
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
	return drawn(render(f, p, 7*vg.Inch, 4*vg.Inch))
}

// Band is one line with an interval around it: Y between Lo and Hi at
// each X.
type Band struct {
	// Name is the legend's, and picks the colour (bandColors).
	Name         string
	X, Y, Lo, Hi []float64
}

// bandColors colour the bands by name: the adaptive attacker's feedback
// modes.
var bandColors = map[string]color.RGBA{"none": {0x73, 0x73, 0x73, 0xff}, "outcome": {0x31, 0x82, 0xbd, 0xff}, "stage": {0xcb, 0x18, 0x1d, 0xff}}

// Bands draws each band as a line with points over a light tint of its
// interval, on a y axis from 0 to 1; a band without points is left out,
// and ok is false when none is left.
func Bands(f Figure, xLabel, yLabel string, bands []Band) (_ Figure, ok bool, _ error) {
	p := newPlot(f.Title, xLabel, yLabel)
	n := 0
	for _, b := range bands {
		if len(b.X) == 0 {
			continue
		}
		line := make(plotter.XYs, len(b.X))
		band := make(plotter.XYs, 0, 2*len(b.X))
		upper := make(plotter.XYs, 0, len(b.X))
		for i, x := range b.X {
			line[i] = plotter.XY{X: x, Y: b.Y[i]}
			band = append(band, plotter.XY{X: x, Y: b.Lo[i]})
			upper = append(upper, plotter.XY{X: x, Y: b.Hi[i]})
		}
		slices.Reverse(upper)
		band = append(band, upper...)
		col := bandColors[b.Name]
		poly, err := plotter.NewPolygon(band)
		if err != nil {
			return Figure{}, false, fmt.Errorf("%s figure: %w", f.Name, err)
		}
		poly.Color = color.NRGBA{col.R, col.G, col.B, 0x30} // not premultiplied: a light tint
		poly.LineStyle.Width, poly.LineStyle.Color = 0, color.Transparent
		l, sc, err := plotter.NewLinePoints(line)
		if err != nil {
			return Figure{}, false, fmt.Errorf("%s figure: %w", f.Name, err)
		}
		l.Color, sc.Color = col, col
		l.Width = vg.Points(1.5)
		p.Add(poly, l, sc)
		p.Legend.Add(b.Name, l, sc)
		n++
	}
	if n == 0 {
		return Figure{}, false, nil
	}
	p.Y.Min, p.Y.Max = 0, 1
	p.Legend.Top = true
	p.Add(plotter.NewGrid())
	return drawn(render(f, p, 7*vg.Inch, 4*vg.Inch))
}
