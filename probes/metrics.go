package probes

import (
	"math"
	"slices"

	"github.com/killchain/killchain/internal/results"
	"github.com/killchain/killchain/internal/stats"
)

// ThresholdAtFPR is the score a clean-control row exceeds with
// probability at most fpr: the (1-fpr) quantile of the clean scores (the
// largest clean score when there are fewer than 1/fpr of them).
func ThresholdAtFPR(clean []float64, fpr float64) float64 {
	if len(clean) == 0 {
		return math.Inf(1)
	}
	s := slices.Clone(clean)
	slices.Sort(s)
	k := int(math.Ceil((1 - fpr) * float64(len(s))))
	if k >= len(s) {
		k = len(s) - 1
	}
	// fire strictly above the threshold
	return s[k]
}

// wilson is the rate k/n with its Wilson 95% interval (stats.Wilson).
// With n = 0 the rate is undefined (NaN, null in train.json) and the
// interval the whole range [0, 1].
func wilson(k, n int) results.Interval {
	lo, hi := stats.Wilson(k, n, stats.Z95)
	iv := results.Interval{Value: math.NaN(), Lo: lo, Hi: hi, N: n}
	if n > 0 {
		iv.Value = float64(k) / float64(n)
	}
	return iv
}
