package stats

import (
	"fmt"
	"math"
	"testing"

	"gonum.org/v1/gonum/stat/distuv"
)

// r4 rounds to the four decimals the published tables print.
func r4(x float64) float64 { return math.Round(x*1e4) / 1e4 }

func TestZ95IsTheNormalQuantile(t *testing.T) {
	q := distuv.UnitNormal.Quantile(0.975)
	if math.Abs(q-Z95) > 1e-15 {
		t.Fatalf("Φ⁻¹(0.975) = %.17g, Z95 = %.17g", q, Z95)
	}
	if p := distuv.UnitNormal.CDF(Z95); math.Abs(p-0.975) > 1e-15 {
		t.Fatalf("Φ(Z95) = %.17g, want 0.975", p)
	}
}

// TestWilsonPublished pins the score interval (method 3) to the examples
// of Newcombe (1998), "Two-sided confidence intervals for the single
// proportion: comparison of seven methods", Statistics in Medicine
// 17:857–872, Table I.
func TestWilsonPublished(t *testing.T) {
	tests := []struct {
		k, n   int
		lo, hi float64
	}{
		{81, 263, 0.2553, 0.3662},
		{15, 148, 0.0624, 0.1605},
		{0, 20, 0.0000, 0.1611},
		{1, 29, 0.0061, 0.1718},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%d of %d", tt.k, tt.n), func(t *testing.T) {
			lo, hi := Wilson(tt.k, tt.n, Z95)
			if r4(lo) != tt.lo || r4(hi) != tt.hi {
				t.Errorf("Wilson = (%.4f, %.4f), want (%.4f, %.4f)", lo, hi, tt.lo, tt.hi)
			}
		})
	}
}

func TestWilsonEdges(t *testing.T) {
	tests := []struct {
		name   string
		k, n   int
		z      float64
		lo, hi float64
		nan    bool
	}{
		{name: "no trials is the whole range", k: 0, n: 0, z: Z95, lo: 0, hi: 1},
		{name: "no trials at any z", k: 0, n: 0, z: 1, lo: 0, hi: 1},
		{name: "k above n", k: 3, n: 2, z: Z95, nan: true},
		{name: "k above n of 0", k: 1, n: 0, z: Z95, nan: true},
		{name: "negative k", k: -1, n: 2, z: Z95, nan: true},
		{name: "negative z", k: 1, n: 2, z: -1, nan: true},
		{name: "NaN z", k: 1, n: 2, z: math.NaN(), nan: true},
		{name: "zero successes is exactly 0", k: 0, n: 7, z: Z95, lo: 0, hi: Z95 * Z95 / (7 + Z95*Z95)},
		{name: "all successes is exactly 1", k: 7, n: 7, z: Z95, lo: 7 / (7 + Z95*Z95), hi: 1},
		{name: "z zero is the point estimate", k: 1, n: 4, z: 0, lo: 0.25, hi: 0.25},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			lo, hi := Wilson(tt.k, tt.n, tt.z)
			if tt.nan {
				if !math.IsNaN(lo) || !math.IsNaN(hi) {
					t.Fatalf("got %v, %v, want NaN", lo, hi)
				}
				return
			}
			if math.Abs(lo-tt.lo) > 1e-12 || math.Abs(hi-tt.hi) > 1e-12 {
				t.Fatalf("got %v–%v, want %v–%v", lo, hi, tt.lo, tt.hi)
			}
		})
	}
}

// quadraticWilson solves the score equation (p̂ − p)² = z² p(1 − p)/n for p
// directly, as a check on the closed form used by Wilson.
func quadraticWilson(k, n int, z float64) (lo, hi float64) {
	ph, nf, z2 := float64(k)/float64(n), float64(n), z*z
	a := 1 + z2/nf
	b := -(2*ph + z2/nf)
	c := ph * ph
	d := math.Sqrt(b*b - 4*a*c)
	return (-b - d) / (2 * a), (-b + d) / (2 * a)
}

func TestWilsonSolvesTheScoreEquation(t *testing.T) {
	for _, z := range []float64{1, 1.645, 1.96, Z95, 2.576} {
		t.Run(fmt.Sprintf("z=%g", z), func(t *testing.T) {
			for n := 1; n <= 120; n++ {
				for k := 0; k <= n; k++ {
					lo, hi := Wilson(k, n, z)
					qlo, qhi := quadraticWilson(k, n, z)
					if math.Abs(lo-qlo) > 1e-9 || math.Abs(hi-qhi) > 1e-9 {
						t.Fatalf("%d/%d: closed form %v–%v, quadratic %v–%v", k, n, lo, hi, qlo, qhi)
					}
				}
			}
		})
	}
}

// checkWilson is the property every interval holds: 0 ≤ lo ≤ k/n ≤ hi ≤ 1,
// exact bounds at k = 0 and k = n, and symmetry under k ↔ n − k.
func checkWilson(t *testing.T, k, n int, z float64) {
	t.Helper()
	lo, hi := Wilson(k, n, z)
	if n == 0 {
		if lo != 0 || hi != 1 {
			t.Fatalf("Wilson(0, 0) = %v–%v, want 0–1", lo, hi)
		}
		return
	}
	p := float64(k) / float64(n)
	if !(0 <= lo && lo <= p && p <= hi && hi <= 1) {
		t.Fatalf("Wilson(%d, %d, %v) = %v–%v does not hold %v inside [0, 1]", k, n, z, lo, hi, p)
	}
	if (k == 0 && lo != 0) || (k == n && hi != 1) {
		t.Fatalf("Wilson(%d, %d, %v) = %v–%v: the bound at the edge is not exact", k, n, z, lo, hi)
	}
	mlo, mhi := Wilson(n-k, n, z)
	if math.Abs(lo-(1-mhi)) > 1e-12 || math.Abs(hi-(1-mlo)) > 1e-12 {
		t.Fatalf("Wilson(%d, %d) = %v–%v is not the mirror of Wilson(%d, %d) = %v–%v", k, n, lo, hi, n-k, n, mlo, mhi)
	}
}

func FuzzWilson(f *testing.F) {
	f.Add(uint32(0), uint32(0), 1.96)
	f.Add(uint32(81), uint32(263), Z95)
	f.Add(uint32(1), uint32(1), 0.0)
	f.Add(uint32(999999), uint32(1000000), 3.5)
	f.Fuzz(func(t *testing.T, k, n uint32, z float64) {
		if math.IsNaN(z) || math.IsInf(z, 0) || z < 0 || z > 10 {
			t.Skip()
		}
		n %= 1 << 24
		if n > 0 {
			k %= n + 1
		} else {
			k = 0
		}
		checkWilson(t, int(k), int(n), z)
	})
}

// TestWilsonEveryCount runs the property over every k ≤ n ≤ 300.
func TestWilsonEveryCount(t *testing.T) {
	for n := 0; n <= 300; n++ {
		for k := 0; k <= n; k++ {
			checkWilson(t, k, n, Z95)
		}
	}
}

// TestNewcombePublished pins method 10 to the worked examples of Newcombe
// (1998), "Interval estimation for the difference between independent
// proportions: comparison of eleven methods", Statistics in Medicine
// 17:873–890, Table II (four decimals).
func TestNewcombePublished(t *testing.T) {
	tests := []struct {
		name           string
		k1, n1, k2, n2 int
		d, lo, hi      float64
	}{
		{"a 56/70 − 48/80", 56, 70, 48, 80, 0.2, 0.0524, 0.3339},
		{"b 9/10 − 3/10", 9, 10, 3, 10, 0.6, 0.1705, 0.8090},
		{"c 6/7 − 2/7", 6, 7, 2, 7, 0.5714, 0.0582, 0.8062},
		{"d 5/56 − 0/29", 5, 56, 0, 29, 0.0893, -0.0381, 0.1926},
		{"e 0/10 − 0/20", 0, 10, 0, 20, 0, -0.1611, 0.2775},
		{"f 0/10 − 0/10", 0, 10, 0, 10, 0, -0.2775, 0.2775},
		{"g 10/10 − 0/20", 10, 10, 0, 20, 1, 0.6791, 1},
		{"h 10/10 − 0/10", 10, 10, 0, 10, 1, 0.6075, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, lo, hi := Newcombe(tt.k1, tt.n1, tt.k2, tt.n2, Z95)
			if r4(d) != tt.d || r4(lo) != tt.lo || r4(hi) != tt.hi {
				t.Errorf("Newcombe = %.4f (%.4f, %.4f), want %.4f (%.4f, %.4f)", d, lo, hi, tt.d, tt.lo, tt.hi)
			}
		})
	}
}

func TestNewcombeEdges(t *testing.T) {
	tests := []struct {
		name           string
		k1, n1, k2, n2 int
		lo, hi         float64 // NaN: want NaN
	}{
		{"first n of 0", 0, 0, 3, 10, -1, 1},
		{"second n of 0", 3, 10, 0, 0, -1, 1},
		{"both n of 0", 0, 0, 0, 0, -1, 1},
		{"k above n", 11, 10, 3, 10, math.NaN(), math.NaN()},
		{"negative k", 3, 10, -1, 10, math.NaN(), math.NaN()},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, lo, hi := Newcombe(tt.k1, tt.n1, tt.k2, tt.n2, Z95)
			same := func(a, b float64) bool { return a == b || (math.IsNaN(a) && math.IsNaN(b)) }
			if !math.IsNaN(d) || !same(lo, tt.lo) || !same(hi, tt.hi) {
				t.Errorf("Newcombe = %v (%v, %v), want NaN (%v, %v)", d, lo, hi, tt.lo, tt.hi)
			}
		})
	}
}

func FuzzNewcombe(f *testing.F) {
	f.Add(uint16(56), uint16(70), uint16(48), uint16(80))
	f.Add(uint16(0), uint16(1), uint16(1), uint16(1))
	f.Add(uint16(5), uint16(56), uint16(0), uint16(29))
	f.Fuzz(func(t *testing.T, k1, n1, k2, n2 uint16) {
		n1, n2 = n1%5000+1, n2%5000+1
		k1, k2 = k1%(n1+1), k2%(n2+1)
		d, lo, hi := Newcombe(int(k1), int(n1), int(k2), int(n2), Z95)
		if !(-1 <= lo && lo <= d && d <= hi && hi <= 1) {
			t.Fatalf("Newcombe(%d/%d − %d/%d) = %v (%v, %v) is not −1 ≤ lo ≤ d ≤ hi ≤ 1", k1, n1, k2, n2, d, lo, hi)
		}
		// Swapping the groups mirrors the interval.
		md, mlo, mhi := Newcombe(int(k2), int(n2), int(k1), int(n1), Z95)
		if math.Abs(d+md) > 1e-12 || math.Abs(lo+mhi) > 1e-12 || math.Abs(hi+mlo) > 1e-12 {
			t.Fatalf("Newcombe is not antisymmetric: %v (%v, %v) against %v (%v, %v)", d, lo, hi, md, mlo, mhi)
		}
	})
}
