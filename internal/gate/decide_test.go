package gate

import (
	"testing"

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
