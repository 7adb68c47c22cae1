package stats

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// pairwiseAUC counts, over every positive–negative pair, a win as 1 and a
// tie as ½ (the Mann–Whitney U), divided by the number of pairs.
func pairwiseAUC(scores []float64, y []bool) float64 {
	var u, pairs float64
	for i := range scores {
		for j := range scores {
			if !y[i] || y[j] {
				continue
			}
			pairs++
			switch {
			case scores[i] > scores[j]:
				u++
			case scores[i] == scores[j]:
				u += 0.5
			}
		}
	}
	if pairs == 0 {
		return math.NaN()
	}
	return u / pairs
}

func TestAUC(t *testing.T) {
	tests := []struct {
		name   string
		scores []float64
		y      []bool
		want   float64
	}{
		{"perfect", []float64{0.1, 0.2, 0.8, 0.9}, []bool{false, false, true, true}, 1},
		{"reversed", []float64{0.9, 0.8, 0.2, 0.1}, []bool{false, false, true, true}, 0},
		// pairs (pos, neg): (0.8,0.1) win, (0.8,0.9) loss, (0.5,0.1) win,
		// (0.5,0.9) loss → 2/4.
		{"half", []float64{0.1, 0.9, 0.8, 0.5}, []bool{false, false, true, true}, 0.5},
		// one tie among the four pairs counts half: (1 + 1 + 0.5 + 1)/4.
		{"one tie", []float64{0.3, 0.5, 0.5, 0.9}, []bool{false, false, true, true}, 0.875},
		// positives 2, 2, 3 against negatives 1, 2, 2: each 2 wins over the 1
		// and ties both 2s (1 + ½ + ½ twice), the 3 wins all three → 7/9.
		{"ties across classes", []float64{2, 1, 2, 3, 2, 2}, []bool{true, false, false, true, true, false}, 7.0 / 9},
		{"all tied", []float64{0.5, 0.5, 0.5, 0.5}, []bool{false, true, false, true}, 0.5},
		{"one class", []float64{0.3, 0.5}, []bool{true, true}, math.NaN()},
		{"no rows", nil, nil, math.NaN()},
		{"a NaN score", []float64{0.3, math.NaN()}, []bool{true, false}, math.NaN()},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := AUC(tt.scores, tt.y)
			if math.IsNaN(tt.want) != math.IsNaN(got) || (!math.IsNaN(got) && math.Abs(got-tt.want) > 1e-12) {
				t.Errorf("AUC = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestROCCurve(t *testing.T) {
	// The "ties across classes" case: cutoffs 3, 2, 1 from the top.
	fpr, tpr := ROC([]float64{2, 1, 2, 3, 2, 2}, []bool{true, false, false, true, true, false})
	wantF, wantT := []float64{0, 0, 2.0 / 3, 1}, []float64{0, 1.0 / 3, 1, 1}
	near := func(a, b []float64) bool {
		return slices.EqualFunc(a, b, func(x, y float64) bool { return math.Abs(x-y) < 1e-12 })
	}
	if !near(fpr, wantF) || !near(tpr, wantT) {
		t.Errorf("ROC = fpr %v tpr %v, want fpr %v tpr %v", fpr, tpr, wantF, wantT)
	}
	if f, tp := ROC([]float64{1, 2}, []bool{true, true}); f != nil || tp != nil {
		t.Errorf("ROC of one class = %v, %v, want nil", f, tp)
	}
	defer func() {
		if recover() == nil {
			t.Error("unequal lengths did not panic")
		}
	}()
	ROC([]float64{1, 2}, []bool{true})
}

// FuzzAUC checks the area against the pair count on scores with many ties.
func FuzzAUC(f *testing.F) {
	f.Add([]byte{1, 2, 3, 4}, uint8(0b0101))
	f.Add([]byte{7, 7, 7, 7, 7}, uint8(0b10))
	f.Add([]byte{0, 255, 3, 3, 9, 1, 1, 200}, uint8(0b11001010))
	f.Fuzz(func(t *testing.T, raw []byte, mask uint8) {
		if len(raw) > 64 {
			raw = raw[:64]
		}
		scores := make([]float64, len(raw))
		y := make([]bool, len(raw))
		for i, b := range raw {
			scores[i] = float64(b % 16) // few distinct values: ties
			y[i] = (b>>4)&1 == 1 || mask>>(i%8)&1 == 1 && b&1 == 0
		}
		got, want := AUC(scores, y), pairwiseAUC(scores, y)
		if math.IsNaN(got) != math.IsNaN(want) || (!math.IsNaN(got) && math.Abs(got-want) > 1e-12) {
			t.Fatalf("AUC(%v, %v) = %v, pair count %v", scores, y, got, want)
		}
	})
}

// BenchmarkAUC times the AUC of 20,000 scores.
func BenchmarkAUC(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 2))
	scores := make([]float64, 20000)
	y := make([]bool, len(scores))
	for i := range scores {
		y[i] = rng.Float64() < 0.4
		scores[i] = rng.NormFloat64()
		if y[i] {
			scores[i] += 0.5
		}
	}
	for b.Loop() {
		AUC(scores, y)
	}
}

func TestAccuracy(t *testing.T) {
	tests := []struct {
		name string
		p    []float64
		y    []bool
		want float64
	}{
		{"all right", []float64{0.9, 0.1}, []bool{true, false}, 1},
		{"one half counts as positive", []float64{0.5, 0.5}, []bool{true, false}, 0.5},
		{"all wrong", []float64{0.2, 0.7}, []bool{true, false}, 0},
		{"no rows", nil, nil, math.NaN()},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Accuracy(tt.p, tt.y)
			if got != tt.want && !(math.IsNaN(got) && math.IsNaN(tt.want)) {
				t.Errorf("Accuracy = %v, want %v", got, tt.want)
			}
		})
	}
}
