package gate

import (
	"math"

	"github.com/killchain/killchain/internal/report"
)

// Newcombe returns the difference p1 − p2 of two independent proportions
// k1/n1 and k2/n2 and its confidence interval by Newcombe's hybrid score
// method (method 10 of Newcombe 1998, "Interval estimation for the
// difference between independent proportions", Statistics in Medicine
// 17:873–890), built from the Wilson intervals (l1, u1) and (l2, u2) at
// normal quantile z:
//
//	lo = d − √((p1 − l1)² + (u2 − p2)²)
//	hi = d + √((u1 − p1)² + (p2 − l2)²)
//
// Either n of 0 gives NaN for d and the interval [−1, 1].
func Newcombe(k1, n1, k2, n2 int, z float64) (d, lo, hi float64) {
	if n1 == 0 || n2 == 0 {
		return math.NaN(), -1, 1
	}
	p1, p2 := float64(k1)/float64(n1), float64(k2)/float64(n2)
	l1, u1 := report.Wilson(k1, n1, z)
	l2, u2 := report.Wilson(k2, n2, z)
	d = p1 - p2
	lo = d - math.Sqrt((p1-l1)*(p1-l1)+(u2-p2)*(u2-p2))
	hi = d + math.Sqrt((u1-p1)*(u1-p1)+(p2-l2)*(p2-l2))
	return d, max(lo, -1), min(hi, 1)
}
