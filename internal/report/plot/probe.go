package plot

import (
	"fmt"
	"image/color"
	"math"

	gplot "gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/killchain/killchain/internal/results"
)

func finite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }

// ProbeAUROC draws a trained probe target's AUROC per layer: leave one
// task out and k-fold (folds), and the controls (shuffled labels, random
// weights, bag of tokens).
func ProbeAUROC(f Figure, t results.ProbeTarget, folds int) (Figure, error) {
	p := gplot.New()
	p.Title.Text = f.Title
	p.X.Label.Text = "layer (0 = embeddings)"
	p.Y.Label.Text = "AUROC"
	p.Y.Min, p.Y.Max = 0, 1
	line := func(label string, ls []results.ProbeLayer, kfold bool, c color.RGBA, dashed bool) error {
		var xy plotter.XYs
		for _, l := range ls {
			v := l.LOSO.AUROC.Value
			if kfold {
				v = l.KFold.AUROC.Value
			}
			if finite(v) {
				xy = append(xy, plotter.XY{X: float64(l.Layer), Y: v})
			}
		}
		if len(xy) == 0 {
			return nil
		}
		ln, pts, err := plotter.NewLinePoints(xy)
		if err != nil {
			return err
		}
		ln.Color, pts.Color = c, c
		if dashed {
			ln.Dashes = []vg.Length{vg.Points(4), vg.Points(3)}
		}
		pts.Shape = draw.CircleGlyph{}
		p.Add(ln, pts)
		p.Legend.Add(label, ln)
		return nil
	}
	blue, orange := color.RGBA{0x21, 0x66, 0xac, 0xff}, color.RGBA{0xd6, 0x60, 0x4d, 0xff}
	grey, green := color.RGBA{0x88, 0x88, 0x88, 0xff}, color.RGBA{0x1b, 0x9e, 0x77, 0xff}
	for _, l := range []struct {
		label  string
		ls     []results.ProbeLayer
		kfold  bool
		c      color.RGBA
		dashed bool
	}{
		{"LOSO", t.Layers, false, blue, false},
		{fmt.Sprintf("%d-fold", folds), t.Layers, true, orange, false},
		{"shuffled labels (LOSO)", t.Shuffled, false, grey, true},
		{"random weights (LOSO)", t.Random, false, green, true},
	} {
		if err := line(l.label, l.ls, l.kfold, l.c, l.dashed); err != nil {
			return Figure{}, fmt.Errorf("probes figure: %w", err)
		}
	}
	if v := t.BagOfTokens.LOSO.AUROC.Value; finite(v) && len(t.Layers) > 0 {
		xy := plotter.XYs{{X: 0, Y: v}, {X: float64(t.Layers[len(t.Layers)-1].Layer), Y: v}}
		ln, err := plotter.NewLine(xy)
		if err != nil {
			return Figure{}, fmt.Errorf("probes figure: %w", err)
		}
		ln.Color = color.RGBA{0x66, 0x33, 0x99, 0xff}
		ln.Dashes = []vg.Length{vg.Points(1), vg.Points(3)}
		p.Add(ln)
		p.Legend.Add("bag of tokens (LOSO)", ln)
	}
	p.Legend.Top, p.Legend.Left = false, true
	p.Legend.YOffs = vg.Points(0)
	return render(f, p, 7*vg.Inch, 4*vg.Inch)
}
