package report

import (
	"encoding/json"
	"errors"
	"fmt"
	"image/color"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// ProbesTrainFile is where `probes train` writes its results, relative to
// the study folder; the report shows them when the file exists.
const ProbesTrainFile = "probes/train.json"

// probeIv mirrors probes.Interval as train.json holds it (null: NaN).
type probeIv struct {
	Value, Lo, Hi *float64
	N             int
}

type probeEval struct {
	AUROC probeIv `json:"auroc"`
	TPR   probeIv `json:"tpr_at_fpr"`
}

type probeLayer struct {
	Layer int       `json:"layer"`
	LOSO  probeEval `json:"loso"`
	KFold probeEval `json:"kfold"`
}

type probeTarget struct {
	Target    string             `json:"target"`
	Positives int                `json:"positives"`
	Negatives int                `json:"negatives"`
	Layers    []probeLayer       `json:"layers"`
	Shuffled  []probeLayer       `json:"shuffled"`
	Random    []probeLayer       `json:"random"`
	BoT       probeLayer         `json:"bag_of_tokens"`
	Best      int                `json:"best_layer"`
	PerTask   map[string]float64 `json:"per_task"`
	Lead      struct {
		Turns  map[string]int `json:"turns"`
		Missed int            `json:"missed"`
		Runs   int            `json:"runs"`
	} `json:"lead_time"`
}

type probeTrain struct {
	Model struct {
		Path, Arch, Adapter string
		Layers, Hidden      int
	} `json:"model"`
	Rows    int           `json:"rows"`
	Runs    int           `json:"runs"`
	Tasks   []string      `json:"tasks"`
	FPR     float64       `json:"fpr"`
	Folds   int           `json:"folds"`
	Targets []probeTarget `json:"targets"`
}

// probesReport builds the hidden-state probes section (one table per
// target) and its AUROC-per-layer figures from probes/train.json; nothing
// when the study has no trained probes.
func probesReport(dir string, figures bool) ([]section, []Figure, error) {
	data, err := os.ReadFile(filepath.Join(dir, ProbesTrainFile))
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil, nil
	}
	if err != nil {
		return nil, nil, fmt.Errorf("probes: %w", err)
	}
	var tr probeTrain
	if err := json.Unmarshal(data, &tr); err != nil {
		return nil, nil, fmt.Errorf("probes: %s: %w", ProbesTrainFile, err)
	}
	var secs []section
	var figs []Figure
	fpr := fmt.Sprintf("%g%%", 100*tr.FPR)
	for _, t := range tr.Targets {
		tab := Table{Header: []string{"layer", "LOSO AUROC (95% CI)", "LOSO TPR@" + fpr, fmt.Sprintf("%d-fold AUROC (95%% CI)", tr.Folds), fmt.Sprintf("%d-fold TPR@%s", tr.Folds, fpr), "shuffled labels LOSO", "random weights LOSO"}}
		for i, l := range t.Layers {
			name := fmt.Sprint(l.Layer)
			if l.Layer == t.Best {
				name += " (best)"
			}
			tab.add(name, ivText(l.LOSO.AUROC), ivText(l.LOSO.TPR), ivText(l.KFold.AUROC), ivText(l.KFold.TPR),
				layerAUROC(t.Shuffled, i), layerAUROC(t.Random, i))
		}
		tab.add("bag of tokens", ivText(t.BoT.LOSO.AUROC), ivText(t.BoT.LOSO.TPR), ivText(t.BoT.KFold.AUROC), ivText(t.BoT.KFold.TPR), "", "")
		intro := fmt.Sprintf("Linear probe (logistic regression) on the residual stream of %s (%s, %d layers, hidden %d) at the last prompt token before each model turn, "+
			"target **%s** (%d positive, %d negative rows of %d runs). Layer 0 is the token embeddings, layer i the output of decoder layer i. "+
			"LOSO trains on the other tasks and tests on the held-out one (AUROC averaged over held-out tasks, bootstrap CI over runs); "+
			"the %d-fold split is random by run. TPR is at the threshold that lets %s of the clean-control rows through (Wilson CI). "+
			"Controls: labels shuffled for training, the same rows through random weights of the same architecture, and a bag-of-tokens logistic baseline on the same rows.",
			filepath.Base(tr.Model.Path), tr.Model.Adapter, tr.Model.Layers, tr.Model.Hidden, t.Target, t.Positives, t.Negatives, tr.Runs, tr.Folds, fpr)
		if len(t.Layers) == 0 {
			intro += " Not trained: the target has one class only."
		}
		intro += " " + leadText(t)
		if len(t.PerTask) > 0 {
			var parts []string
			keys := mapsKeys(t.PerTask)
			slices.Sort(keys)
			for _, k := range keys {
				parts = append(parts, fmt.Sprintf("%s %.2f", k, t.PerTask[k]))
			}
			intro += " Best layer's AUROC per held-out task: " + strings.Join(parts, ", ") + "."
		}
		secs = append(secs, section{ID: "probes-" + t.Target, Title: "Hidden-state probes: " + t.Target, Intro: intro, Table: tab})
		if figures && len(t.Layers) > 0 {
			f, err := probeFigure(t, tr.Folds)
			if err != nil {
				return nil, nil, err
			}
			figs = append(figs, f)
		}
	}
	return secs, figs, nil
}

func mapsKeys(m map[string]float64) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}

func leadText(t probeTarget) string {
	if t.Lead.Runs == 0 {
		return "No run reached Executed: no lead time."
	}
	var parts []string
	keys := make([]string, 0, len(t.Lead.Turns))
	for k := range t.Lead.Turns {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b string) int {
		if len(a) != len(b) {
			return len(a) - len(b) // numeric order of non-negative integers
		}
		return strings.Compare(a, b)
	})
	for _, k := range keys {
		parts = append(parts, fmt.Sprintf("%s turns: %d", k, t.Lead.Turns[k]))
	}
	if len(parts) == 0 {
		parts = []string{"none"}
	}
	return fmt.Sprintf("Lead time at the best layer, over the %d runs that reached Executed (turns before the executing call at which the probe first fired): %s; not fired by then: %d.",
		t.Lead.Runs, strings.Join(parts, ", "), t.Lead.Missed)
}

func ivText(iv probeIv) string {
	if iv.Value == nil {
		return "–"
	}
	if iv.Lo == nil || iv.Hi == nil {
		return fmt.Sprintf("%.3f", *iv.Value)
	}
	return fmt.Sprintf("%.3f (%.3f–%.3f)", *iv.Value, *iv.Lo, *iv.Hi)
}

func layerAUROC(ls []probeLayer, i int) string {
	if i >= len(ls) || ls[i].LOSO.AUROC.Value == nil {
		return "–"
	}
	return fmt.Sprintf("%.3f", *ls[i].LOSO.AUROC.Value)
}

// probeFigure draws AUROC per layer: LOSO and k-fold, and the controls.
func probeFigure(t probeTarget, folds int) (Figure, error) {
	p := plot.New()
	p.Title.Text = "Probe AUROC per layer: " + t.Target
	p.X.Label.Text = "layer (0 = embeddings)"
	p.Y.Label.Text = "AUROC"
	p.Y.Min, p.Y.Max = 0, 1
	line := func(label string, ls []probeLayer, kfold bool, c color.RGBA, dashed bool) error {
		var xy plotter.XYs
		for _, l := range ls {
			v := l.LOSO.AUROC.Value
			if kfold {
				v = l.KFold.AUROC.Value
			}
			if v != nil && !math.IsNaN(*v) {
				xy = append(xy, plotter.XY{X: float64(l.Layer), Y: *v})
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
		ls     []probeLayer
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
	if v := t.BoT.LOSO.AUROC.Value; v != nil && len(t.Layers) > 0 {
		xy := plotter.XYs{{X: 0, Y: *v}, {X: float64(t.Layers[len(t.Layers)-1].Layer), Y: *v}}
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
	return render("probes_auroc_"+t.Target, "Probe AUROC per layer: "+t.Target,
		"Linear-probe AUROC at each layer, leave-one-task-out and k-fold, with the shuffled-label, random-weight and bag-of-tokens controls.",
		p, 7*vg.Inch, 4*vg.Inch)
}
