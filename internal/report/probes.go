package report

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/killchain/killchain/internal/report/plot"
	"github.com/killchain/killchain/internal/results"
	"github.com/killchain/killchain/internal/sanitize"
)

// probesReport builds the hidden-state probes section (one table per
// target) and its AUROC-per-layer figures from probes/train.json; nothing
// when the study has no trained probes.
func probesReport(dir string, figures bool) ([]section, []plot.Figure, error) {
	data, err := os.ReadFile(filepath.Join(dir, results.ProbesTrainFile))
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil, nil
	}
	if err != nil {
		return nil, nil, fmt.Errorf("probes: %w", err)
	}
	var tr results.ProbeTrain
	if err := json.Unmarshal(data, &tr); err != nil {
		return nil, nil, fmt.Errorf("probes: %s: %w", results.ProbesTrainFile, err)
	}
	var secs []section
	var figs []plot.Figure
	fpr := fmt.Sprintf("%g%%", 100*tr.FPR)
	for _, t := range tr.Targets {
		if len(t.Layers) == 0 {
			// Skipped: the reason is all there is to say.
			secs = append(secs, section{ID: "probes-" + t.Target, Title: "Hidden-state probes: " + t.Target,
				Intro: fmt.Sprintf("Target **%s** was not trained: it has one class only in this study (%d positive, %d negative rows).",
					t.Target, t.Positives, t.Negatives)})
			continue
		}
		tab := Table{Header: []string{"layer", "LOSO AUROC (95% CI)", "LOSO TPR@" + fpr, fmt.Sprintf("%d-fold AUROC (95%% CI)", tr.Folds), fmt.Sprintf("%d-fold TPR@%s", tr.Folds, fpr), "shuffled labels LOSO", "random weights LOSO"}}
		for i, l := range t.Layers {
			name := fmt.Sprint(l.Layer)
			if l.Layer == t.Best {
				name += " (best)"
			}
			tab.add(name, ivText(l.LOSO.AUROC), ivText(l.LOSO.TPR), ivText(l.KFold.AUROC), ivText(l.KFold.TPR),
				layerAUROC(t.Shuffled, i), layerAUROC(t.Random, i))
		}
		tab.add("bag of tokens", ivText(t.BagOfTokens.LOSO.AUROC), ivText(t.BagOfTokens.LOSO.TPR), ivText(t.BagOfTokens.KFold.AUROC), ivText(t.BagOfTokens.KFold.TPR), "", "")
		addLOFO(&tab, t)
		intro := fmt.Sprintf("Linear probe (logistic regression) on the residual stream of %s (%s, %d layers, hidden %d) at the last prompt token before each model turn, "+
			"target **%s** (%d positive, %d negative rows of %d runs). Layer 0 is the token embeddings, layer i the output of decoder layer i. "+
			"LOSO trains on the other tasks and tests on the held-out one (AUROC averaged over held-out tasks, bootstrap CI over runs); "+
			"the %d-fold split is random by run. TPR is at the threshold that lets %s of the clean-control rows through (Wilson CI). "+
			"Controls: labels shuffled for training, the same rows through random weights of the same architecture, and a bag-of-tokens logistic baseline on the same rows.",
			filepath.Base(tr.Model.Path), tr.Model.Adapter, tr.Model.Layers, tr.Model.Hidden, t.Target, t.Positives, t.Negatives, tr.Runs, tr.Folds, fpr)
		intro += " " + leadText(t)
		if len(t.PerTask) > 0 {
			var parts []string
			for _, k := range slices.Sorted(maps.Keys(t.PerTask)) {
				parts = append(parts, fmt.Sprintf("%s %.2f", k, t.PerTask[k]))
			}
			intro += " Best layer's AUROC per held-out task: " + strings.Join(parts, ", ") + "."
		}
		secs = append(secs, section{ID: "probes-" + t.Target, Title: "Hidden-state probes: " + t.Target, Intro: intro, Table: tab})
		if figures {
			f, err := plot.ProbeAUROC(plot.Figure{Name: "probes_auroc_" + sanitize.FileName(t.Target), Title: "Probe AUROC per layer: " + t.Target,
				Caption: "Linear-probe AUROC at each layer, leave-one-task-out and k-fold, with the shuffled-label, random-weight and bag-of-tokens controls."},
				t, tr.Folds)
			if err != nil {
				return nil, nil, err
			}
			figs = append(figs, f)
		}
	}
	return secs, figs, nil
}

func leadText(t results.ProbeTarget) string {
	if t.Lead.Runs == 0 {
		return "No run reached Executed: no lead time."
	}
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(t.Lead.Turns)) {
		parts = append(parts, fmt.Sprintf("%d turns: %d", k, t.Lead.Turns[k]))
	}
	if len(parts) == 0 {
		parts = []string{"none"}
	}
	return fmt.Sprintf("Lead time at the best layer, over the %d runs that reached Executed (turns before the executing call at which the probe first fired): %s; not fired by then: %d.",
		t.Lead.Runs, strings.Join(parts, ", "), t.Lead.Missed)
}

func ivText(iv results.Interval) string {
	if !finite(iv.Value) {
		return "–"
	}
	if !finite(iv.Lo) || !finite(iv.Hi) {
		return fmt.Sprintf("%.3f", iv.Value)
	}
	return fmt.Sprintf("%.3f (%.3f–%.3f)", iv.Value, iv.Lo, iv.Hi)
}

func finite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }

func layerAUROC(ls []results.ProbeLayer, i int) string {
	if i >= len(ls) || !finite(ls[i].LOSO.AUROC.Value) {
		return "–"
	}
	return fmt.Sprintf("%.3f", ls[i].LOSO.AUROC.Value)
}

// addLOFO adds the leave-one-attack-family-out AUROC column when training
// computed it (a study of two or more attack families).
func addLOFO(tab *Table, t results.ProbeTarget) {
	has := false
	for _, l := range t.Layers {
		has = has || l.LOFO != nil
	}
	if !has {
		return
	}
	tab.Header = append(tab.Header, "leave-one-family-out AUROC (95% CI)")
	for i := range tab.Rows {
		v := ""
		if i < len(t.Layers) && t.Layers[i].LOFO != nil {
			v = ivText(t.Layers[i].LOFO.AUROC)
		}
		if i == len(t.Layers) && t.BagOfTokens.LOFO != nil {
			v = ivText(t.BagOfTokens.LOFO.AUROC)
		}
		tab.Rows[i] = append(tab.Rows[i], v)
	}
}
