package stats

import (
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/optimize"
	"gonum.org/v1/gonum/stat"
)

// Float is the element type of a feature matrix: analysis' run features
// are float64, probes' activations float32.
type Float interface{ ~float32 | ~float64 }

// Logistic is an L2-regularised logistic regression over standardised
// features. The log-odds of a row r is
//
//	Coef[0] + Σ_j Coef[1+j] · (r[j] − Mean[j]) / Std[j]
//
// where a feature whose Std is 0 (no variance in training) counts as 0.
type Logistic struct {
	Mean, Std []float64 // standardisation learnt from the training rows
	Coef      []float64 // Coef[0] is the intercept, Coef[1+j] feature j's standardised coefficient
}

// minStd is the training standard deviation below which a feature is taken
// as constant: a spread that small (in an activation, rounding) is no
// signal, and standardising would blow it up to unit variance.
const minStd = 1e-8

// gradientThreshold ends a fit: the largest component of the gradient of
// the mean penalised negative log-likelihood below it.
const gradientThreshold = 1e-7

// maxIterations bounds a fit's L-BFGS iterations; a convex fit of a few
// thousand features is well inside it.
const maxIterations = 500

// FitLogistic fits the n rows of x (row-major, d features each, so
// len(x) = n·d) to labels y by minimising, with gonum's L-BFGS from the
// base-rate intercept, the mean penalised negative log-likelihood
//
//	(Σ_i [log(1 + e^{s_i}) − y_i·s_i] + ridge/2 · Σ_j Coef[1+j]²) / n
//
// over the standardised features. The intercept is not penalised; a ridge
// above 0 keeps the fit finite on separable rows (ridge λ on the sum is
// λ/n on the mean log-loss). A line search that can make no more progress
// ends the fit where it stands: at float64's precision near the optimum of
// a convex objective, that is the optimum.
func FitLogistic[F Float](x []F, d int, y []bool, ridge float64) (*Logistic, error) {
	n := len(y)
	if n == 0 {
		return nil, errors.New("fit: no rows")
	}
	if d <= 0 || len(x) != n*d {
		return nil, fmt.Errorf("fit: %d values for %d rows of %d", len(x), n, d)
	}
	if ridge < 0 || math.IsNaN(ridge) || math.IsInf(ridge, 0) {
		return nil, fmt.Errorf("fit: ridge %g is not a finite penalty ≥ 0", ridge)
	}
	m := &Logistic{Mean: make([]float64, d), Std: make([]float64, d), Coef: make([]float64, d+1)}
	col := make([]float64, n)
	for j := range d {
		for i := range n {
			col[i] = float64(x[i*d+j])
		}
		m.Mean[j], m.Std[j] = stat.PopMeanStdDev(col, nil)
		if m.Std[j] < minStd {
			m.Std[j] = 0
		}
	}
	// Z holds 1 and the standardised features of each row; t the labels.
	D := d + 1
	Z := mat.NewDense(n, D, nil)
	t := mat.NewVecDense(n, nil)
	pos := 0.0
	for i := range n {
		standardize(m, x[i*d:(i+1)*d], Z.RawRowView(i))
		if y[i] {
			t.SetVec(i, 1)
			pos++
		}
	}
	// The objective is the mean penalised negative log-likelihood, so that
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
	m.Coef[0] = math.Log(rate / (1 - rate))
	settings := &optimize.Settings{GradientThreshold: gradientThreshold, MajorIterations: maxIterations}
	opt, err := optimize.Minimize(problem, m.Coef, settings, &optimize.LBFGS{})
	if err != nil && (opt == nil || !errors.Is(err, optimize.ErrLinesearcherFailure)) {
		return nil, fmt.Errorf("fit: %w", err)
	}
	copy(m.Coef, opt.X)
	return m, nil
}

// Logits returns the fitted log-odds of each row of x (row-major, as wide
// as the fit's rows).
func Logits[F Float](m *Logistic, x []F) []float64 {
	d := len(m.Mean)
	if d == 0 || len(x)%d != 0 {
		panic(fmt.Sprintf("stats: %d values are not rows of %d", len(x), d))
	}
	z := make([]float64, d+1)
	out := make([]float64, len(x)/d)
	for i := range out {
		standardize(m, x[i*d:(i+1)*d], z)
		out[i] = floats.Dot(m.Coef, z)
	}
	return out
}

// Probs returns the fitted probability of the positive class for each row
// of x: the logistic function of its log-odds.
func Probs[F Float](m *Logistic, x []F) []float64 {
	p := Logits(m, x)
	for i, v := range p {
		p[i] = sigmoid(v)
	}
	return p
}

// sigmoid is the logistic function 1 / (1 + e^−t).
func sigmoid(t float64) float64 { return 1 / (1 + math.Exp(-t)) }

// standardize writes 1 and the standardised features of r into z.
func standardize[F Float](m *Logistic, r []F, z []float64) {
	z[0] = 1
	for j, v := range r {
		if m.Std[j] > 0 {
			z[j+1] = (float64(v) - m.Mean[j]) / m.Std[j]
		} else {
			z[j+1] = 0
		}
	}
}
