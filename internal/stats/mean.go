package stats

import "math"

// MeanInterval is the mean of vals and its normal-approximation interval
// at z (Z95 for 95 %): mean ± z·s/√n, s the sample standard deviation.
// With fewer than two values the interval is the mean itself; with none,
// every result is NaN.
func MeanInterval(vals []float64, z float64) (mean, lo, hi float64) {
	n := float64(len(vals))
	if n == 0 {
		return math.NaN(), math.NaN(), math.NaN()
	}
	for _, v := range vals {
		mean += v
	}
	mean /= n
	if n < 2 {
		return mean, mean, mean
	}
	var ss float64
	for _, v := range vals {
		ss += (v - mean) * (v - mean)
	}
	half := z * math.Sqrt(ss/(n-1)) / math.Sqrt(n)
	return mean, mean - half, mean + half
}
