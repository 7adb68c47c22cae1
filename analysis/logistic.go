package analysis

import (
	"errors"
	"math"
	"slices"
)

// logit is an L2-regularized logistic regression over standardized
// features, fitted by Newton's method (iteratively reweighted least
// squares). The intercept is not penalized.
type logit struct {
	mean, std []float64 // standardization learnt from the training rows
	w         []float64 // w[0] is the intercept, w[1+j] feature j
}

// ridge is the L2 penalty on the standardized coefficients; it keeps the
// fit finite on separable data.
const ridge = 1.0

// fitLogit fits rows x (all of one width) with labels y.
func fitLogit(x [][]float64, y []bool) (*logit, error) {
	if len(x) == 0 {
		return nil, errors.New("no rows")
	}
	d := len(x[0])
	m := &logit{mean: make([]float64, d), std: make([]float64, d), w: make([]float64, d+1)}
	for _, r := range x {
		for j, v := range r {
			m.mean[j] += v
		}
	}
	n := float64(len(x))
	for j := range m.mean {
		m.mean[j] /= n
	}
	for _, r := range x {
		for j, v := range r {
			dv := v - m.mean[j]
			m.std[j] += dv * dv
		}
	}
	for j := range m.std {
		m.std[j] = math.Sqrt(m.std[j] / n)
	}
	pos := 0.0
	for _, b := range y {
		if b {
			pos++
		}
	}
	// Start from the base rate.
	rate := (pos + 0.5) / (n + 1)
	m.w[0] = math.Log(rate / (1 - rate))

	D := d + 1
	// Standardize once: Z holds 1 and the standardized features, row-major.
	Z := make([]float64, len(x)*D)
	for i, r := range x {
		m.standardize(r, Z[i*D:(i+1)*D])
	}
	h := make([]float64, D*D)
	g := make([]float64, D)
	for iter := 0; iter < 25; iter++ {
		clear(h)
		clear(g)
		for i := range x {
			z := Z[i*D : (i+1)*D]
			p := sigmoid(dot(m.w, z))
			t := 0.0
			if y[i] {
				t = 1
			}
			wt := max(p*(1-p), 1e-10)
			for a := range D {
				g[a] += (p - t) * z[a]
				za := wt * z[a]
				if za == 0 {
					continue
				}
				row := h[a*D : (a+1)*D]
				for b := a; b < D; b++ {
					row[b] += za * z[b]
				}
			}
		}
		for a := 1; a < D; a++ {
			g[a] += ridge * m.w[a]
			h[a*D+a] += ridge
		}
		for a := range D {
			for b := 0; b < a; b++ {
				h[a*D+b] = h[b*D+a]
			}
		}
		step, err := solve(h, g, D)
		if err != nil {
			return nil, err
		}
		change := 0.0
		for a := range D {
			m.w[a] -= step[a]
			change = max(change, math.Abs(step[a]))
		}
		if change < 1e-6 {
			break
		}
	}
	return m, nil
}

// standardize writes 1 and the standardized features of r into z; a
// feature without variance in training is 0.
func (m *logit) standardize(r, z []float64) {
	z[0] = 1
	for j, v := range r {
		if m.std[j] > 0 {
			z[j+1] = (v - m.mean[j]) / m.std[j]
		} else {
			z[j+1] = 0
		}
	}
}

// predict returns the probability of the positive class for each row.
func (m *logit) predict(x [][]float64) []float64 {
	z := make([]float64, len(m.w))
	out := make([]float64, len(x))
	for i, r := range x {
		m.standardize(r, z)
		out[i] = sigmoid(dot(m.w, z))
	}
	return out
}

func sigmoid(t float64) float64 { return 1 / (1 + math.Exp(-t)) }

func dot(a, b []float64) float64 {
	s := 0.0
	for i := range a {
		s += a[i] * b[i]
	}
	return s
}

// solve solves the symmetric positive definite system h·s = g by Cholesky.
func solve(h, g []float64, n int) ([]float64, error) {
	l := make([]float64, n*n)
	for i := range n {
		for j := 0; j <= i; j++ {
			s := h[i*n+j]
			for k := range j {
				s -= l[i*n+k] * l[j*n+k]
			}
			if i == j {
				if s <= 0 {
					return nil, errors.New("hessian not positive definite")
				}
				l[i*n+i] = math.Sqrt(s)
			} else {
				l[i*n+j] = s / l[j*n+j]
			}
		}
	}
	y := make([]float64, n)
	for i := range n {
		s := g[i]
		for k := range i {
			s -= l[i*n+k] * y[k]
		}
		y[i] = s / l[i*n+i]
	}
	x := make([]float64, n)
	for i := n - 1; i >= 0; i-- {
		s := y[i]
		for k := i + 1; k < n; k++ {
			s -= l[k*n+i] * x[k]
		}
		x[i] = s / l[i*n+i]
	}
	return x, nil
}

// AUC is the area under the ROC curve of scores for labels y: the
// probability that a positive scores above a negative, ties counting half
// (the Mann–Whitney statistic with average ranks). NaN without both classes.
func AUC(scores []float64, y []bool) float64 {
	idx := make([]int, len(scores))
	for i := range idx {
		idx[i] = i
	}
	slices.SortFunc(idx, func(a, b int) int {
		switch {
		case scores[a] < scores[b]:
			return -1
		case scores[a] > scores[b]:
			return 1
		}
		return 0
	})
	var pos, neg, rankSum float64
	for i := 0; i < len(idx); {
		j := i
		for j < len(idx) && scores[idx[j]] == scores[idx[i]] {
			j++
		}
		avg := float64(i+j+1) / 2 // ranks i+1 … j
		for k := i; k < j; k++ {
			if y[idx[k]] {
				rankSum += avg
				pos++
			} else {
				neg++
			}
		}
		i = j
	}
	if pos == 0 || neg == 0 {
		return math.NaN()
	}
	return (rankSum - pos*(pos+1)/2) / (pos * neg)
}

// accuracy is the share of rows whose probability is on the label's side of 0.5.
func accuracy(p []float64, y []bool) float64 {
	if len(p) == 0 {
		return math.NaN()
	}
	ok := 0
	for i := range p {
		if (p[i] >= 0.5) == y[i] {
			ok++
		}
	}
	return float64(ok) / float64(len(p))
}
