package report

import (
	"fmt"
	"math"
	"testing"
)

func TestWilsonReference(t *testing.T) {
	// Published intervals (percent, one decimal) at z = 1.96.
	tests := []struct {
		k, n   int
		lo, hi float64
	}{
		{0, 40, 0.0, 8.8},
		{32, 60, 40.9, 65.4},
		{3, 20, 5.2, 36.0},
		{2, 3, 20.8, 93.9},
		{3, 3, 43.8, 100.0},
		{0, 6, 0.0, 39.0},
		{20, 20, 83.9, 100.0},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%d of %d", tt.k, tt.n), func(t *testing.T) {
			lo, hi := Wilson(tt.k, tt.n, 1.96)
			if got := math.Round(lo*1000) / 10; got != tt.lo {
				t.Errorf("lo = %.1f%%, want %.1f%%", got, tt.lo)
			}
			if got := math.Round(hi*1000) / 10; got != tt.hi {
				t.Errorf("hi = %.1f%%, want %.1f%%", got, tt.hi)
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
		{name: "no trials", k: 0, n: 0, z: Z95, lo: 0, hi: 1},
		{name: "k above n", k: 3, n: 2, z: Z95, nan: true},
		{name: "negative k", k: -1, n: 2, z: Z95, nan: true},
		{name: "negative z", k: 1, n: 2, z: -1, nan: true},
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

func TestWilsonMatchesQuadratic(t *testing.T) {
	for _, z := range []float64{1, 1.645, 1.96, Z95, 2.576} {
		for n := 1; n <= 120; n++ {
			for k := 0; k <= n; k++ {
				lo, hi := Wilson(k, n, z)
				qlo, qhi := quadraticWilson(k, n, z)
				if math.Abs(lo-qlo) > 1e-9 || math.Abs(hi-qhi) > 1e-9 {
					t.Fatalf("z=%v %d/%d: closed form %v–%v, quadratic %v–%v", z, k, n, lo, hi, qlo, qhi)
				}
				p := float64(k) / float64(n)
				if lo > p || hi < p || lo < 0 || hi > 1 {
					t.Fatalf("z=%v %d/%d: %v–%v does not hold %v inside [0, 1]", z, k, n, lo, hi, p)
				}
			}
		}
	}
}
