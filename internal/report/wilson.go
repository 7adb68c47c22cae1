package report

import "math"

// Z95 is the normal quantile of a two-sided 95% interval.
const Z95 = 1.959963984540054

// Wilson returns the Wilson score interval for k successes in n trials at
// normal quantile z (use Z95 for 95%). With no trials it returns the whole
// range [0, 1]: nothing is known. It returns NaN, NaN when k is outside
// [0, n] or z is negative.
//
// The interval is centred on (k + z²/2) / (n + z²) and, unlike the normal
// approximation, stays inside [0, 1] and is not degenerate at k = 0 or k = n,
// which matters at the small per-cell n of agent studies.
func Wilson(k, n int, z float64) (lo, hi float64) {
	if k < 0 || k > n || z < 0 || math.IsNaN(z) {
		return math.NaN(), math.NaN()
	}
	if n == 0 {
		return 0, 1
	}
	nf := float64(n)
	p := float64(k) / nf
	z2 := z * z
	denom := 1 + z2/nf
	center := (p + z2/(2*nf)) / denom
	half := z / denom * math.Sqrt(p*(1-p)/nf+z2/(4*nf*nf))
	lo, hi = center-half, center+half
	// At k = 0 and k = n one bound is exactly 0 or 1; rounding must not
	// leave it a hair away.
	if k == 0 || lo < 0 {
		lo = 0
	}
	if k == n || hi > 1 {
		hi = 1
	}
	return lo, hi
}
