package analysis

import (
	"errors"
	"fmt"
	"math"
	"slices"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/integrate"
	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/optimize"
	"gonum.org/v1/gonum/stat"
)

// logit is an L2-regularized logistic regression over standardized
// features, fitted with gonum's L-BFGS. The intercept is not penalized.
type logit struct {
	mean, std []float64 // standardization learnt from the training rows
	w         []float64 // w[0] is the intercept, w[1+j] feature j
}

// ridge is the L2 penalty on the standardized coefficients; it keeps the
// fit finite on separable data.
const ridge = 1.0

// gradientThreshold ends the fit: the largest component of the gradient of
// the mean penalized negative log-likelihood below it.
const gradientThreshold = 1e-7

// fitLogit fits rows x (all of one width) with labels y.
func fitLogit(x [][]float64, y []bool) (*logit, error) {
	if len(x) == 0 {
		return nil, errors.New("no rows")
	}
	n, d := len(x), len(x[0])
	m := &logit{mean: make([]float64, d), std: make([]float64, d), w: make([]float64, d+1)}
	col := make([]float64, n)
	for j := range d {
		for i, r := range x {
			col[i] = r[j]
		}
		m.mean[j], m.std[j] = stat.PopMeanStdDev(col, nil)
	}
	// Z holds 1 and the standardized features of each row; t the labels.
	D := d + 1
	Z := mat.NewDense(n, D, nil)
	t := mat.NewVecDense(n, nil)
	pos := 0.0
	for i, r := range x {
		m.standardize(r, Z.RawRowView(i))
		if y[i] {
			t.SetVec(i, 1)
			pos++
		}
	}
	// The objective is the mean penalized negative log-likelihood, so that
	// its value keeps the precision the line search needs near the optimum.
	// Func and Grad are asked at the same points: the scores are kept.
	s := mat.NewVecDense(n, nil) // Z·w at last
	res := mat.NewVecDense(n, nil)
	last := make([]float64, D)
	scored := false
	score := func(w []float64) {
		if !scored || !floats.Equal(w, last) {
			s.MulVec(Z, mat.NewVecDense(D, w))
			copy(last, w)
			scored = true
		}
	}
	inv := 1 / float64(n)
	problem := optimize.Problem{
		Func: func(w []float64) float64 {
			score(w)
			nll := 0.0
			for i, v := range s.RawVector().Data {
				// log(1+e^v) − t·v, computed without overflow.
				nll += math.Max(v, 0) + math.Log1p(math.Exp(-math.Abs(v))) - t.AtVec(i)*v
			}
			return (nll + ridge/2*floats.Dot(w[1:], w[1:])) * inv
		},
		Grad: func(grad, w []float64) {
			score(w)
			for i, v := range s.RawVector().Data {
				res.SetVec(i, sigmoid(v)-t.AtVec(i))
			}
			g := mat.NewVecDense(D, grad)
			g.MulVec(Z.T(), res)
			for a := range D {
				if a > 0 {
					grad[a] += ridge * w[a]
				}
				grad[a] *= inv
			}
		},
	}
	// Start from the base rate.
	rate := (pos + 0.5) / (float64(n) + 1)
	m.w[0] = math.Log(rate / (1 - rate))
	opt, err := optimize.Minimize(problem, m.w, &optimize.Settings{GradientThreshold: gradientThreshold}, &optimize.LBFGS{})
	if err != nil {
		return nil, fmt.Errorf("fit: %w", err)
	}
	copy(m.w, opt.X)
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
		out[i] = sigmoid(floats.Dot(m.w, z))
	}
	return out
}

func sigmoid(t float64) float64 { return 1 / (1 + math.Exp(-t)) }

// AUC is the area under the ROC curve of scores for labels y (stat.ROC over
// every cutoff, integrated by the trapezoidal rule): the probability that a
// positive scores above a negative, ties counting half. NaN without both
// classes.
func AUC(scores []float64, y []bool) float64 {
	pos := 0
	for _, b := range y {
		if b {
			pos++
		}
	}
	if pos == 0 || pos == len(y) {
		return math.NaN()
	}
	// stat.ROC wants the scores sorted, with their labels.
	type scored struct {
		s float64
		y bool
	}
	pairs := make([]scored, len(scores))
	for i, v := range scores {
		pairs[i] = scored{v, y[i]}
	}
	slices.SortFunc(pairs, func(a, b scored) int {
		switch {
		case a.s < b.s:
			return -1
		case a.s > b.s:
			return 1
		}
		return 0
	})
	s := make([]float64, len(pairs))
	c := make([]bool, len(pairs))
	for k, p := range pairs {
		s[k], c[k] = p.s, p.y
	}
	tpr, fpr, _ := stat.ROC(nil, s, c, nil)
	return integrate.Trapezoidal(fpr, tpr)
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
