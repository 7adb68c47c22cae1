package probes

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/killchain/killchain/internal/rooted"
	"github.com/killchain/killchain/internal/stats"
)

// ScoreTarget sums one probe's scores on a study.
type ScoreTarget struct {
	Target string  `json:"target"`
	Layer  int     `json:"layer"`
	Rows   int     `json:"rows"`
	Fired  int     `json:"fired"`
	AUROC  float64 `json:"auroc"` // against the study's own labels; NaN with one class
}

// ScoreSummary is what Score wrote.
type ScoreSummary struct {
	Probes  string        `json:"probes"`
	Targets []ScoreTarget `json:"targets"`
}

// scoreLine is one line of scores.jsonl.
type scoreLine struct {
	Row    int     `json:"row"`
	RunID  string  `json:"run_id"`
	Step   int     `json:"step"`
	Target string  `json:"target"`
	Score  float64 `json:"score"`
	Fires  bool    `json:"fires"`
	Label  bool    `json:"label"`
}

// Score applies the probes in probesFile (probes.json of a trained study)
// to the extraction in dir and writes scores.jsonl to out (default: the
// extraction's parent). The extraction must come from the same model.
func Score(probesFile, dir, out string) (*ScoreSummary, error) {
	data, err := os.ReadFile(probesFile)
	if err != nil {
		return nil, fmt.Errorf("score: %w", err)
	}
	var sp SavedProbes
	if err := json.Unmarshal(data, &sp); err != nil {
		return nil, fmt.Errorf("score: %s: %w", probesFile, err)
	}
	ds, err := loadDataset(dir)
	if err != nil {
		return nil, err
	}
	if m := ds.meta.Model; m.Arch != sp.Model.Arch || m.Hidden != sp.Model.Hidden || m.Layers != sp.Model.Layers || m.Adapter != sp.Model.Adapter {
		return nil, fmt.Errorf("score: the probes were trained on %s (%s, %d layers, hidden %d); the extraction is of %s (%s, %d layers, hidden %d)",
			sp.Model.Arch, sp.Model.Adapter, sp.Model.Layers, sp.Model.Hidden, m.Arch, m.Adapter, m.Layers, m.Hidden)
	}
	if out == "" {
		out = filepath.Dir(dir)
	}
	od, err := rooted.Open(out)
	if err != nil {
		return nil, fmt.Errorf("score: %w", err)
	}
	defer od.Close()
	f, err := od.Create("scores.jsonl")
	if err != nil {
		return nil, fmt.Errorf("score: %w", err)
	}
	defer f.Close()
	enc := json.NewEncoder(f)
	sum := &ScoreSummary{Probes: probesFile}
	for _, p := range sp.Probes {
		x, err := ds.layer(p.Layer)
		if err != nil {
			return nil, err
		}
		y, err := ds.labels(p.Target)
		if err != nil {
			return nil, err
		}
		if p.Probe == nil || len(p.Probe.Mean) != ds.hidden || len(p.Probe.Std) != ds.hidden || len(p.Probe.W) != ds.hidden {
			return nil, fmt.Errorf("score: %s: the %s probe is not a probe of hidden %d", probesFile, p.Target, ds.hidden)
		}
		st := ScoreTarget{Target: p.Target, Layer: p.Layer, Rows: len(y)}
		scores := p.Probe.Score(x)
		for i, s := range scores {
			r := ds.rows[i]
			fires := s > p.Threshold
			if fires {
				st.Fired++
			}
			if err := enc.Encode(scoreLine{Row: r.Row, RunID: r.RunID, Step: r.Step, Target: p.Target, Score: s, Fires: fires, Label: y[i]}); err != nil {
				return nil, fmt.Errorf("score: %w", err)
			}
		}
		st.AUROC = stats.AUC(scores, y)
		sum.Targets = append(sum.Targets, st)
	}
	return sum, f.Commit()
}
