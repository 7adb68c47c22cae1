package stats

import (
	"math"
	"testing"
)

func TestMeanInterval(t *testing.T) {
	tests := []struct {
		name         string
		vals         []float64
		mean, lo, hi float64
	}{
		{"one value", []float64{3}, 3, 3, 3},
		// mean 2, s = 1, n = 3: half = 1.96/√3.
		{"three values", []float64{1, 2, 3}, 2, 2 - 1.959963984540054/math.Sqrt(3), 2 + 1.959963984540054/math.Sqrt(3)},
		{"constant", []float64{5, 5, 5, 5}, 5, 5, 5},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, lo, hi := MeanInterval(tt.vals, Z95)
			if math.Abs(m-tt.mean) > 1e-12 || math.Abs(lo-tt.lo) > 1e-9 || math.Abs(hi-tt.hi) > 1e-9 {
				t.Fatalf("MeanInterval(%v) = %v [%v, %v], want %v [%v, %v]", tt.vals, m, lo, hi, tt.mean, tt.lo, tt.hi)
			}
		})
	}
	t.Run("empty", func(t *testing.T) {
		if m, _, _ := MeanInterval(nil, Z95); !math.IsNaN(m) {
			t.Fatalf("mean of nothing = %v, want NaN", m)
		}
	})
}
