package gate

import (
	"math"
	"testing"

	"github.com/killchain/killchain/internal/report"
	"github.com/killchain/killchain/internal/study"
)

// TestDecide is the Wilson decision table: max and min bounds, pass, fail
// and inconclusive, the edges, and n = 0.
func TestDecide(t *testing.T) {
	tests := []struct {
		name  string
		k, n  int
		bound string
		value float64
		want  Verdict
	}{
		// Wilson 95% of 0/40 is [0, 8.8%], of 12/12 [75.8%, 100%], of 2/10 [5.7%, 51.0%].
		{"max pass: hi below bound", 0, 40, study.BoundMax, 0.1, Pass},
		{"max fail: lo above bound", 12, 12, study.BoundMax, 0.1, Fail},
		{"max inconclusive: straddles", 2, 10, study.BoundMax, 0.1, Inconclusive},
		{"max inconclusive: 0 of 6 is not enough", 0, 6, study.BoundMax, 0.1, Inconclusive},
		{"max pass at hi equal to bound", 3, 3, study.BoundMax, 1, Pass},
		{"max 0 fails on one hit", 5, 5, study.BoundMax, 0, Fail},
		{"min pass: lo above bound", 12, 12, study.BoundMin, 0.5, Pass},
		{"min fail: hi below bound", 0, 40, study.BoundMin, 0.5, Fail},
		{"min inconclusive: straddles", 5, 10, study.BoundMin, 0.5, Inconclusive},
		{"min pass at lo equal to bound", 0, 3, study.BoundMin, 0, Pass},
		{"max n=0", 0, 0, study.BoundMax, 0.1, Inconclusive},
		{"min n=0", 0, 0, study.BoundMin, 0.9, Inconclusive},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, lo, hi := Decide(tt.k, tt.n, tt.bound, tt.value)
			if got != tt.want {
				t.Errorf("Decide(%d, %d, %s %g) = %s [%.4f, %.4f], want %s", tt.k, tt.n, tt.bound, tt.value, got, lo, hi, tt.want)
			}
			if tt.n == 0 && (lo != 0 || hi != 1) {
				t.Errorf("n = 0 interval [%g, %g], want [0, 1]", lo, hi)
			}
		})
	}
}

// TestNewcombe checks method 10 against the worked examples of Newcombe
// (1998), Statistics in Medicine 17:873–890, table II (four decimals).
func TestNewcombe(t *testing.T) {
	tests := []struct {
		name           string
		k1, n1, k2, n2 int
		d, lo, hi      float64
	}{
		{"a 56/70 vs 48/80", 56, 70, 48, 80, 0.2, 0.0524, 0.3339},
		{"b 9/10 vs 3/10", 9, 10, 3, 10, 0.6, 0.1705, 0.8090},
		{"c 6/7 vs 2/7", 6, 7, 2, 7, 0.5714, 0.0582, 0.8062},
		{"d 5/56 vs 0/29", 5, 56, 0, 29, 0.0893, -0.0381, 0.1926},
		{"g 0/10 vs 0/20", 0, 10, 0, 20, 0, -0.1611, 0.2775},
		{"h 10/10 vs 0/20", 10, 10, 0, 20, 1, 0.6791, 1},
	}
	r4 := func(x float64) float64 { return math.Round(x*1e4) / 1e4 }
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, lo, hi := Newcombe(tt.k1, tt.n1, tt.k2, tt.n2, report.Z95)
			if r4(d) != tt.d || r4(lo) != tt.lo || r4(hi) != tt.hi {
				t.Errorf("Newcombe = %.4f (%.4f, %.4f), want %.4f (%.4f, %.4f)", d, lo, hi, tt.d, tt.lo, tt.hi)
			}
		})
	}
	t.Run("n=0", func(t *testing.T) {
		d, lo, hi := Newcombe(0, 0, 3, 10, 1.96)
		if !math.IsNaN(d) || lo != -1 || hi != 1 {
			t.Errorf("Newcombe with n1 = 0 = %g (%g, %g), want NaN (-1, 1)", d, lo, hi)
		}
	})
}
