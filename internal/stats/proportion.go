// Package stats holds every statistic killchain reports: the Wilson score
// interval of a proportion and Newcombe's interval of a difference of two,
// the ROC curve and its area, the L2-regularised logistic fit, percentile
// bootstrap intervals, and k-fold and grouped splits of rows. Report, gate,
// analysis and probes all compute through it, so a number means the same in
// every table. It builds on gonum where gonum has the piece (ROC, the
// trapezoidal rule, quantiles, L-BFGS) and imports nothing of killchain.
package stats

import "math"

// Z95 is the normal quantile of a two-sided 95% interval, Φ⁻¹(0.975),
// rounded to the nearest float64. It is the one z of every 95% interval
// killchain shows.
const Z95 = 1.959963984540054

// Wilson returns the Wilson score interval of k successes in n trials at
// normal quantile z (Z95 for 95%).
//
// With no trials (n = 0) it returns the whole range [0, 1]: nothing is
// known, and [0, 1] is where the interval tends as n shrinks. The rate k/n
// itself is undefined there; callers show it as missing (report's "—",
// probes' null), never as 0. It returns NaN, NaN when k is outside [0, n]
// or z is negative or NaN: that is a caller's mistake, not an interval.
//
// The interval is centred on (k + z²/2) / (n + z²) and, unlike the normal
// approximation, stays inside [0, 1] and is not degenerate at k = 0 or
// k = n, which matters at the small per-cell n of agent studies. At k = 0
// the lower bound is exactly 0 and at k = n the upper exactly 1.
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

// Newcombe returns the difference d = p1 − p2 of two independent
// proportions k1/n1 and k2/n2 and its confidence interval by Newcombe's
// hybrid score method (method 10 of Newcombe 1998, "Interval estimation for
// the difference between independent proportions: comparison of eleven
// methods", Statistics in Medicine 17:873–890), built from the Wilson
// intervals (l1, u1) and (l2, u2) at normal quantile z:
//
//	lo = d − √((p1 − l1)² + (u2 − p2)²)
//	hi = d + √((u1 − p1)² + (p2 − l2)²)
//
// clamped to [−1, 1]. With n1 or n2 of 0 the difference is undefined (NaN)
// and the interval the whole range [−1, 1], as Wilson's is [0, 1]. Counts
// outside [0, n] or a bad z give NaN throughout.
func Newcombe(k1, n1, k2, n2 int, z float64) (d, lo, hi float64) {
	l1, u1 := Wilson(k1, n1, z)
	l2, u2 := Wilson(k2, n2, z)
	if math.IsNaN(l1) || math.IsNaN(l2) {
		return math.NaN(), math.NaN(), math.NaN()
	}
	if n1 == 0 || n2 == 0 {
		return math.NaN(), -1, 1
	}
	p1, p2 := float64(k1)/float64(n1), float64(k2)/float64(n2)
	d = p1 - p2
	lo = d - math.Sqrt((p1-l1)*(p1-l1)+(u2-p2)*(u2-p2))
	hi = d + math.Sqrt((u1-p1)*(u1-p1)+(p2-l2)*(p2-l2))
	return d, max(lo, -1), min(hi, 1)
}
