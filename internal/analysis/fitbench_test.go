package analysis

import (
	"math/rand/v2"
	"testing"
)

// benchSample is a classifier sample shaped like a report's: n rows of
// len(results.FeatureNames)-like width over six tasks, with some signal.
func benchSample(n, d int) Sample {
	names := make([]string, d)
	for j := range names {
		names[j] = "f" + itoa(j)
	}
	return synth(n, []string{"t1", "t2", "t3", "t4", "t5", "t6"}, names,
		func(k int, r *rand.Rand) bool { return r.Float64() < 0.3+0.08*float64(k) },
		func(k int, y bool, r *rand.Rand) []float64 {
			v := make([]float64, d)
			for j := range v {
				v[j] = r.NormFloat64()
			}
			if y {
				v[0] += 1
				v[1] -= 0.5
			}
			v[2] = float64(k)
			return v
		})
}

// BenchmarkClassify times Classify (5-fold CV, leave-one-task-out, the
// full fit and the permutation importances) on 4,000 rows of 34 features.
func BenchmarkClassify(b *testing.B) {
	s := benchSample(4000, 34)
	for b.Loop() {
		if _, err := Classify(s, 5, 1); err != nil {
			b.Fatal(err)
		}
	}
}
