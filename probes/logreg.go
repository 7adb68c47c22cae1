package probes

import (
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/optimize"
)

// Probe is a linear probe: logistic regression over standardized features.
type Probe struct {
	Mean []float64 `json:"mean"`
	Std  []float64 `json:"std"`
	W    []float64 `json:"w"`
	B    float64   `json:"b"`
}

// DefaultL2 is the ridge penalty on the standardized weights (times the
// mean log-loss); it keeps fits finite on separable rows.
const DefaultL2 = 1e-2

// FitProbe fits x (n rows of d values) against y by L-BFGS on the mean
// log-loss plus l2/2·|w|²; the bias is not penalized.
func FitProbe(x []float32, d int, y []bool, l2 float64) (*Probe, error) {
	n := len(y)
	if n == 0 || len(x) != n*d {
		return nil, fmt.Errorf("fit: %d values for %d rows of %d", len(x), n, d)
	}
	p := &Probe{Mean: make([]float64, d), Std: make([]float64, d), W: make([]float64, d)}
	for i := range n {
		for j := range d {
			p.Mean[j] += float64(x[i*d+j])
		}
	}
	for j := range d {
		p.Mean[j] /= float64(n)
	}
	for i := range n {
		for j := range d {
			v := float64(x[i*d+j]) - p.Mean[j]
			p.Std[j] += v * v
		}
	}
	for j := range d {
		p.Std[j] = math.Sqrt(p.Std[j] / float64(n))
		if p.Std[j] < 1e-8 {
			p.Std[j] = 1
		}
	}
	z := make([]float64, n*d)
	for i := range n {
		for j := range d {
			z[i*d+j] = (float64(x[i*d+j]) - p.Mean[j]) / p.Std[j]
		}
	}
	t := make([]float64, n)
	for i, v := range y {
		if v {
			t[i] = 1
		}
	}
	lin := make([]float64, n)
	eval := func(w []float64) {
		for i := range n {
			s := w[d]
			row := z[i*d : (i+1)*d]
			for j, v := range row {
				s += w[j] * v
			}
			lin[i] = s
		}
	}
	prob := optimize.Problem{
		Func: func(w []float64) float64 {
			eval(w)
			var f float64
			for i, s := range lin {
				// log(1+e^s) - t·s, computed stably
				f += softplus(s) - t[i]*s
			}
			f /= float64(n)
			for j := range d {
				f += l2 / 2 * w[j] * w[j]
			}
			return f
		},
		Grad: func(g, w []float64) {
			eval(w)
			clear(g)
			for i, s := range lin {
				r := (sigmoid(s) - t[i]) / float64(n)
				row := z[i*d : (i+1)*d]
				for j, v := range row {
					g[j] += r * v
				}
				g[d] += r
			}
			for j := range d {
				g[j] += l2 * w[j]
			}
		},
	}
	res, err := optimize.Minimize(prob, make([]float64, d+1), &optimize.Settings{GradientThreshold: 1e-7, MajorIterations: 500}, &optimize.LBFGS{})
	if err != nil && !errors.Is(err, optimize.ErrLinesearcherFailure) {
		return nil, fmt.Errorf("fit: %w", err)
	}
	if res == nil {
		return nil, errors.New("fit: no result")
	}
	copy(p.W, res.X[:d])
	p.B = res.X[d]
	return p, nil
}

// Score returns the probe's logit for each of the rows of x.
func (p *Probe) Score(x []float32, d int) []float64 {
	n := len(x) / d
	out := make([]float64, n)
	for i := range n {
		s := p.B
		for j := range d {
			s += p.W[j] * (float64(x[i*d+j]) - p.Mean[j]) / p.Std[j]
		}
		out[i] = s
	}
	return out
}

func sigmoid(s float64) float64 {
	if s >= 0 {
		return 1 / (1 + math.Exp(-s))
	}
	e := math.Exp(s)
	return e / (1 + e)
}

func softplus(s float64) float64 {
	if s > 30 {
		return s
	}
	return math.Log1p(math.Exp(s))
}
