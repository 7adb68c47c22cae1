package plot

import (
	"fmt"
	"image/color"
	"slices"

	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Point is one labelled point of a scatter figure with its interval on
// each axis.
type Point struct {
	Label       string
	X, XLo, XHi float64
	Y, YLo, YHi float64
}

// ciPoints are points with asymmetric error bars in x and y.
type ciPoints struct {
	plotter.XYs
	xerr, yerr [][2]float64 // low and high distances
}

func (c ciPoints) XError(i int) (float64, float64) { return c.xerr[i][0], c.xerr[i][1] }
func (c ciPoints) YError(i int) (float64, float64) { return c.yerr[i][0], c.yerr[i][1] }

// Scatter draws rates against rates (both axes from 0 to about 1), each
// point with its intervals as error bars and its label; points at the same
// place share one label.
func Scatter(f Figure, xLabel, yLabel string, points []Point) (Figure, error) {
	var pts ciPoints
	var labels []string
	for _, pt := range points {
		pts.XYs = append(pts.XYs, plotter.XY{X: pt.X, Y: pt.Y})
		pts.xerr = append(pts.xerr, [2]float64{pt.X - pt.XLo, pt.XHi - pt.X})
		pts.yerr = append(pts.yerr, [2]float64{pt.Y - pt.YLo, pt.YHi - pt.Y})
		labels = append(labels, pt.Label)
	}
	p := newPlot(f.Title, xLabel, yLabel)
	sc, err := plotter.NewScatter(pts)
	if err != nil {
		return Figure{}, fmt.Errorf("tradeoff figure: %w", err)
	}
	sc.GlyphStyle.Shape = draw.CircleGlyph{}
	sc.GlyphStyle.Radius = vg.Points(3.5)
	sc.GlyphStyle.Color = color.RGBA{0xcb, 0x18, 0x1d, 0xff}
	xe, err := plotter.NewXErrorBars(pts)
	if err != nil {
		return Figure{}, fmt.Errorf("tradeoff figure: %w", err)
	}
	ye, err := plotter.NewYErrorBars(pts)
	if err != nil {
		return Figure{}, fmt.Errorf("tradeoff figure: %w", err)
	}
	xe.Color, ye.Color = color.Gray{0x99}, color.Gray{0x99}
	// Points at the same place share one label.
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
		return Figure{}, fmt.Errorf("tradeoff figure: %w", err)
	}
	lb.Offset = vg.Point{X: vg.Points(5), Y: vg.Points(3)}
	p.Add(xe, ye, sc, lb)
	p.X.Min, p.X.Max, p.Y.Min, p.Y.Max = 0, 1.15, 0, 1.05
	p.Add(plotter.NewGrid())
	return render(f, p, 6*vg.Inch, 5*vg.Inch)
}
