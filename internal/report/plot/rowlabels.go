package plot

import (
	"bytes"
	"image/color"

	gplot "gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Row labels of the bar and heat-map figures are placed explicitly rather
// than as gonum's tick labels. Tick labels are right-aligned by computing
// their start from Liberation Serif's metrics; an SVG viewer without that
// font draws a wider one from the same start, and the text ran on under the
// bars, which are drawn after the axes. Here each label starts at the
// figure's left margin, left-aligned, the data area begins labelSlack times
// the longest label's measured width further right, and the labels are
// drawn last, over anything they might still reach.

// labelSlack is the room reserved per unit of measured label width: a
// substitute font up to 25% wider still ends before the data area.
const labelSlack = 1.25

// labelMargin is the space left of the labels and between them and the
// data area.
const labelMargin = vg.Length(6)

// rowLabels draws category labels at y = 0, 1, … left of the data area.
type rowLabels struct {
	labels  []string
	style   draw.TextStyle
	reserve vg.Length // width between the figure's left edge and the data area
}

var _ gplot.Plotter = (*rowLabels)(nil)

// setRowLabels replaces the Y axis tick labels of p with explicitly
// placed row labels and reserves their room from the font's metrics.
func setRowLabels(p *gplot.Plot, labels []string) *rowLabels {
	sty := draw.TextStyle{
		Color: color.Black, Font: font.From(gplot.DefaultFont, vg.Points(10)),
		XAlign: draw.XLeft, YAlign: draw.YCenter, Handler: p.Title.TextStyle.Handler,
	}
	r := &rowLabels{labels: labels, style: sty, reserve: rowLabelsWidth(sty, labels)}
	blank := make([]string, len(labels))
	nominal(&p.Y, blank)
	p.Y.Padding = r.reserve
	p.Add(r)
	return r
}

// rowLabelsWidth is the room the labels need: margins plus labelSlack
// times the longest label's width in the style's font.
func rowLabelsWidth(sty draw.TextStyle, labels []string) vg.Length {
	var w vg.Length
	for _, l := range labels {
		w = max(w, sty.Width(l))
	}
	return 2*labelMargin + vg.Length(labelSlack)*w
}

// Plot implements plot.Plotter: labels start at the figure's left margin.
func (r *rowLabels) Plot(c draw.Canvas, p *gplot.Plot) {
	_, ty := p.Transforms(&c)
	x := c.Min.X - r.reserve + labelMargin
	for i, l := range r.labels {
		c.FillText(r.style, vg.Point{X: x, Y: ty(float64(i))}, l)
	}
}

// svgFonts names metric-compatible fallbacks after the fonts gonum's SVG
// canvas names, for viewers without Liberation Serif.
func svgFonts(svg []byte) []byte {
	return bytes.ReplaceAll(svg, []byte("font-family:Liberation Serif;"),
		[]byte("font-family:'Liberation Serif','Times New Roman',Times,serif;"))
}
