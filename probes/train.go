package probes

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/killchain/killchain/internal/results"
	"github.com/killchain/killchain/internal/rooted"
	"github.com/killchain/killchain/internal/stats"
)

// TrainOptions configure Train.
type TrainOptions struct {
	// Out is where train.json and probes.json go; default the extraction
	// folder's parent (DIR/probes).
	Out string
	// Random is an extraction of the same study through the same
	// architecture with random weights (the third control); optional.
	Random    string
	L2        float64
	Folds     int     // random k-fold split, by run; default 5
	FPR       float64 // false-positive rate on clean controls; default 0.01
	Bootstrap int     // bootstrap replicates for AUROC intervals; default 200
	Seed      uint64
	Logger    hclog.Logger
}

func (o *TrainOptions) defaults(out string) {
	if o.Out == "" {
		o.Out = out
	}
	if o.L2 <= 0 {
		o.L2 = DefaultL2
	}
	if o.Folds < 2 {
		o.Folds = 5
	}
	if o.FPR <= 0 {
		o.FPR = 0.01
	}
	if o.Bootstrap == 0 {
		o.Bootstrap = 200
	}
	if o.Logger == nil {
		o.Logger = hclog.NewNullLogger()
	}
}

// SavedProbe is one target's probe as probes.json keeps it for `probes
// score`: fitted on every row at the best layer.
type SavedProbe struct {
	Target    string  `json:"target"`
	Layer     int     `json:"layer"`
	Threshold float64 `json:"threshold"` // logit above which the probe fires
	Probe     *Probe  `json:"probe"`
}

// SavedProbes is probes.json.
type SavedProbes struct {
	Model  results.ProbeModel `json:"model"`
	Study  string             `json:"study"`
	FPR    float64            `json:"fpr"`
	Probes []SavedProbe       `json:"probes"`
}

// Train fits and evaluates probes on the extraction in dir for every
// target and layer, with the controls, and writes train.json and
// probes.json.
func Train(dir string, o TrainOptions) (*results.ProbeTrain, error) {
	o.defaults(filepath.Dir(dir))
	log := o.Logger.Named("train")
	start := time.Now()
	ds, err := loadDataset(dir)
	if err != nil {
		return nil, err
	}
	var rnd *dataset
	if o.Random != "" {
		if rnd, err = loadDataset(o.Random); err != nil {
			return nil, fmt.Errorf("random-weights control: %w", err)
		}
		if len(rnd.rows) != len(ds.rows) {
			return nil, fmt.Errorf("random-weights control has %d rows, the extraction %d", len(rnd.rows), len(ds.rows))
		}
	}
	sp := newSplits(ds.rows, o.Folds, o.Seed)
	res := &results.ProbeTrain{Model: ds.meta.Model, Study: ds.meta.Study, Rows: len(ds.rows), Runs: len(sp.runs.Names), Tasks: sp.tasks.Names, FPR: o.FPR, Folds: o.Folds}
	saved := SavedProbes{Model: ds.meta.Model, Study: ds.meta.Study, FPR: o.FPR}
	layers := make([][]float32, ds.meta.Model.Layers+1)
	for l := range layers {
		if layers[l], err = ds.layer(l); err != nil {
			return nil, err
		}
	}
	bow, err := ds.bagOfTokens()
	if err != nil {
		return nil, err
	}
	d := ds.hidden
	// Lead time is measured against the executing turn for every target.
	executes, err := ds.labels("executes")
	if err != nil {
		return nil, err
	}
	for ti, target := range Targets {
		y, _ := ds.labels(target)
		tr := results.ProbeTarget{Target: target, PerTask: map[string]float64{}}
		for _, v := range y {
			if v {
				tr.Positives++
			} else {
				tr.Negatives++
			}
		}
		if tr.Positives == 0 || tr.Negatives == 0 {
			log.Warn("target has one class only; skipped", "target", target)
			res.Targets = append(res.Targets, tr)
			continue
		}
		shuffled := slices.Clone(y)
		rng := rand.New(rand.NewPCG(o.Seed, uint64(ti)+1))
		rng.Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
		bestAUC := math.Inf(-1)
		var bestLOSO []float64
		for l, x := range layers {
			ev, loso, err := sp.evaluate(x, d, y, y, o)
			if err != nil {
				return nil, fmt.Errorf("%s layer %d: %w", target, l, err)
			}
			ev.Layer = l
			tr.Layers = append(tr.Layers, ev)
			if a := ev.LOSO.AUROC.Value; a > bestAUC || (math.IsNaN(bestAUC) && !math.IsNaN(a)) {
				bestAUC, tr.Best, bestLOSO = a, l, loso
			}
			sh, _, err := sp.evaluate(x, d, shuffled, y, o)
			if err != nil {
				return nil, fmt.Errorf("%s layer %d shuffled: %w", target, l, err)
			}
			sh.Layer = l
			tr.Shuffled = append(tr.Shuffled, sh)
			if rnd != nil {
				rx, err := rnd.layer(l)
				if err != nil {
					return nil, fmt.Errorf("random-weights control: %w", err)
				}
				if rnd.hidden != d {
					return nil, fmt.Errorf("random-weights control has hidden %d, want %d", rnd.hidden, d)
				}
				rv, _, err := sp.evaluate(rx, d, y, y, o)
				if err != nil {
					return nil, fmt.Errorf("%s layer %d random: %w", target, l, err)
				}
				rv.Layer = l
				tr.Random = append(tr.Random, rv)
			}
		}
		if tr.BagOfTokens, _, err = sp.evaluate(bow, bowBuckets, y, y, o); err != nil {
			return nil, fmt.Errorf("%s bag of tokens: %w", target, err)
		}
		tr.BagOfTokens.Layer = -1
		for ti, t := range sp.tasks.Names {
			s, yy := pickScores(bestLOSO, y, sp.tasks.Rows[ti])
			if a := stats.AUC(s, yy); !math.IsNaN(a) {
				tr.PerTask[t] = a
			}
		}
		tr.Lead = leadTime(ds.rows, executes, bestLOSO, sp.clean, o.FPR)
		tr.Lead.Layer = tr.Best
		p, err := FitProbe(layers[tr.Best], d, y, o.L2)
		if err != nil {
			return nil, err
		}
		var clean []float64
		for i, s := range p.Score(layers[tr.Best]) {
			if sp.clean[i] {
				clean = append(clean, s)
			}
		}
		saved.Probes = append(saved.Probes, SavedProbe{Target: target, Layer: tr.Best, Threshold: finite(ThresholdAtFPR(clean, o.FPR)), Probe: p})
		res.Targets = append(res.Targets, tr)
		log.Info("trained", "target", target, "best_layer", tr.Best, "loso_auroc", bestAUC)
	}
	res.Seconds = time.Since(start).Seconds()
	if err := writeJSON(filepath.Join(o.Out, "train.json"), res); err != nil {
		return nil, err
	}
	if err := writeJSON(filepath.Join(o.Out, "probes.json"), saved); err != nil {
		return nil, err
	}
	return res, nil
}

// writeJSON writes v to path through package rooted (a link at path is
// refused), creating its folder.
func writeJSON(path string, v any) error {
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return fmt.Errorf("write %s: %w", filepath.Base(path), err)
	}
	d, err := rooted.Open(filepath.Dir(path))
	if err != nil {
		return fmt.Errorf("write %s: %w", filepath.Base(path), err)
	}
	defer d.Close()
	return d.WriteFile(filepath.Base(path), data)
}

// finite caps an infinite threshold (no clean rows) so JSON can hold it.
func finite(x float64) float64 {
	if math.IsInf(x, 1) {
		return math.MaxFloat64
	}
	return x
}
