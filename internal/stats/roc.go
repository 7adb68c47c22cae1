package stats

import (
	"fmt"
	"math"
	"slices"

	"gonum.org/v1/gonum/integrate"
	"gonum.org/v1/gonum/stat"
)

// ROC returns the receiver operating characteristic of scores against
// labels y (true: positive): the false and true positive rates of the rule
// "positive when the score is at least the cutoff", one point per distinct
// score from the highest down, starting at (0, 0) and ending at (1, 1).
// Tied scores move the curve in one diagonal step. It is gonum's stat.ROC
// over the scores sorted with their labels. Without both classes, or with a
// NaN score, the curve is undefined: nil, nil. Scores and labels of unequal
// length are a caller's mistake and panic.
func ROC(scores []float64, y []bool) (fpr, tpr []float64) {
	if len(scores) != len(y) {
		panic(fmt.Sprintf("stats: %d scores for %d labels", len(scores), len(y)))
	}
	pos := 0
	for i, b := range y {
		if math.IsNaN(scores[i]) {
			return nil, nil
		}
		if b {
			pos++
		}
	}
	if pos == 0 || pos == len(y) {
		return nil, nil
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
	tpr, fpr, _ = stat.ROC(nil, s, c, nil)
	return fpr, tpr
}

// AUC is the area under the ROC curve of scores for labels y, integrated
// by the trapezoidal rule: the probability that a positive scores above a
// negative, ties counting half — the Mann–Whitney U of the positives over
// positives × negatives. NaN without both classes or with a NaN score.
func AUC(scores []float64, y []bool) float64 {
	fpr, tpr := ROC(scores, y)
	if fpr == nil {
		return math.NaN()
	}
	return integrate.Trapezoidal(fpr, tpr)
}

// Accuracy is the share of rows whose predicted probability p is on their
// label's side of ½ (p ≥ ½ for a positive); NaN with no rows.
func Accuracy(p []float64, y []bool) float64 {
	if len(p) != len(y) {
		panic(fmt.Sprintf("stats: %d probabilities for %d labels", len(p), len(y)))
	}
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
