package probes

import (
	"github.com/killchain/killchain/internal/stats"
)

// Probe is a linear probe: logistic regression over standardized features,
// as probes.json keeps it. A feature whose Std is 0 had no variance in
// training and counts as 0.
type Probe struct {
	Mean []float64 `json:"mean"`
	Std  []float64 `json:"std"`
	W    []float64 `json:"w"`
	B    float64   `json:"b"`
}

// DefaultL2 is the ridge penalty on the standardized weights (times the
// mean log-loss); it keeps fits finite on separable rows.
const DefaultL2 = 1e-2

// FitProbe fits x (n rows of d values) against y with stats.FitLogistic on
// the mean log-loss plus l2/2·|w|²; the bias is not penalized.
func FitProbe(x []float32, d int, y []bool, l2 float64) (*Probe, error) {
	// FitLogistic's ridge is on the summed log-loss: l2 on the mean is
	// l2·n on the sum.
	m, err := stats.FitLogistic(x, d, y, l2*float64(len(y)))
	if err != nil {
		return nil, err
	}
	return &Probe{Mean: m.Mean, Std: m.Std, W: m.Coef[1:], B: m.Coef[0]}, nil
}

// model is the probe as the fit it came from.
func (p *Probe) model() *stats.Logistic {
	return &stats.Logistic{Mean: p.Mean, Std: p.Std, Coef: append([]float64{p.B}, p.W...)}
}

// Score returns the probe's logit for each of the rows of x, each as wide
// as the probe (len(Mean)).
func (p *Probe) Score(x []float32) []float64 { return stats.Logits(p.model(), x) }
