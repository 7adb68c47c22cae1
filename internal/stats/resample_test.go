package stats

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

func TestGroupBy(t *testing.T) {
	g := GroupBy([]string{"r2", "r1", "r2", "r3", "r1"})
	if !slices.Equal(g.Names, []string{"r2", "r1", "r3"}) || g.Len() != 5 {
		t.Fatalf("names %v (len %d), want r2 r1 r3 in first-appearance order", g.Names, g.Len())
	}
	want := [][]int{{0, 2}, {1, 4}, {3}}
	for i := range want {
		if !slices.Equal(g.Rows[i], want[i]) {
			t.Errorf("rows of %s = %v, want %v", g.Names[i], g.Rows[i], want[i])
		}
	}
	s := g.Sorted()
	if !slices.Equal(s.Names, []string{"r1", "r2", "r3"}) || !slices.Equal(s.Rows[0], []int{1, 4}) {
		t.Errorf("sorted = %v %v", s.Names, s.Rows)
	}
	if e := GroupBy(nil); len(e.Names) != 0 || e.Len() != 0 {
		t.Errorf("no rows grouped into %v", e)
	}
}

func TestFolds(t *testing.T) {
	labels := make([]string, 0, 97)
	for i := range 97 {
		labels = append(labels, string(rune('a'+i%23))) // 23 groups of 4 or 5 rows
	}
	g := GroupBy(labels)
	tests := []struct{ k int }{{2}, {5}, {23}}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("k=%d", tt.k), func(t *testing.T) {
			fold := g.Folds(tt.k, rand.New(rand.NewPCG(9, 9)))
			if len(fold) != len(labels) {
				t.Fatalf("%d folds for %d rows", len(fold), len(labels))
			}
			groupsIn := make([]int, tt.k)
			for gi, rows := range g.Rows {
				f := fold[rows[0]]
				if f < 0 || f >= tt.k {
					t.Fatalf("group %s in fold %d", g.Names[gi], f)
				}
				for _, r := range rows {
					if fold[r] != f {
						t.Fatalf("group %s straddles folds %d and %d", g.Names[gi], f, fold[r])
					}
				}
				groupsIn[f]++
			}
			if slices.Max(groupsIn)-slices.Min(groupsIn) > 1 {
				t.Errorf("groups per fold %v differ by more than one", groupsIn)
			}
			if again := g.Folds(tt.k, rand.New(rand.NewPCG(9, 9))); !slices.Equal(again, fold) {
				t.Error("the same seed dealt other folds")
			}
		})
	}
}

func TestStratifiedFolds(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	y := make([]bool, 103)
	for i := range y {
		y[i] = rng.Float64() < 0.3
	}
	const k = 5
	fold := StratifiedFolds(y, k, rand.New(rand.NewPCG(4, 4)))
	pos, neg := make([]int, k), make([]int, k)
	for i, f := range fold {
		if f < 0 || f >= k {
			t.Fatalf("row %d in fold %d", i, f)
		}
		if y[i] {
			pos[f]++
		} else {
			neg[f]++
		}
	}
	if slices.Max(pos)-slices.Min(pos) > 1 || slices.Max(neg)-slices.Min(neg) > 1 {
		t.Errorf("positives per fold %v, negatives %v: not within one", pos, neg)
	}
}

func TestResampleKeepsGroupsWhole(t *testing.T) {
	g := GroupBy([]string{"a", "a", "a", "b", "c", "c"})
	rng := rand.New(rand.NewPCG(2, 3))
	seen := map[int]bool{}
	for range 50 {
		rows := g.Resample(rng, nil)
		count := map[int]int{}
		for _, r := range rows {
			count[r]++
			seen[r] = true
		}
		// Rows of one group are drawn together: equally often.
		for _, grp := range g.Rows {
			for _, r := range grp[1:] {
				if count[r] != count[grp[0]] {
					t.Fatalf("resample %v split a group %v", rows, grp)
				}
			}
		}
	}
	if len(seen) != 6 {
		t.Errorf("50 resamples drew only rows %v", seen)
	}
}

func TestPercentiles(t *testing.T) {
	vals := make([]float64, 200)
	for i := range vals {
		vals[i] = float64(199 - i) // 0..199, unsorted
	}
	tests := []struct {
		name   string
		vals   []float64
		tail   float64
		lo, hi float64
	}{
		// The smallest value with at least 2.5% (5 of 200) at or below it
		// is the fifth, 4; with 97.5% (195), the 195th, 194.
		{"95% of 200", vals, Tail95, 4, 194},
		{"one value", []float64{0.7}, Tail95, 0.7, 0.7},
		{"no values", nil, Tail95, math.NaN(), math.NaN()},
		{"a tail of half", []float64{1, 2}, 0.5, math.NaN(), math.NaN()},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			lo, hi := Percentiles(slices.Clone(tt.vals), tt.tail)
			same := func(a, b float64) bool { return a == b || (math.IsNaN(a) && math.IsNaN(b)) }
			if !same(lo, tt.lo) || !same(hi, tt.hi) {
				t.Errorf("Percentiles = %v, %v, want %v, %v", lo, hi, tt.lo, tt.hi)
			}
		})
	}
}

func TestBootstrap(t *testing.T) {
	// The mean of 400 groups of one row, ~U(0, 1): the 95% interval of the
	// mean is about ±1.96·0.289/√400 = ±0.028 around the sample mean.
	rng := rand.New(rand.NewPCG(5, 6))
	x := make([]float64, 400)
	labels := make([]string, len(x))
	var mean float64
	for i := range x {
		x[i] = rng.Float64()
		labels[i] = string(rune(0x4e00 + i))
		mean += x[i] / float64(len(x))
	}
	g := GroupBy(labels)
	var rows []int
	replicate := func(r *rand.Rand) float64 {
		rows = g.Resample(r, rows[:0])
		var s float64
		for _, i := range rows {
			s += x[i]
		}
		return s / float64(len(rows))
	}
	lo, hi := Bootstrap(1000, Tail95, rand.New(rand.NewPCG(7, 8)), replicate)
	if !(lo < mean && mean < hi) || math.Abs((hi-lo)/2-0.028) > 0.006 {
		t.Errorf("interval %v–%v around the mean %v, want a half-width near 0.028", lo, hi, mean)
	}
	t.Run("undefined replicates are left out", func(t *testing.T) {
		i := 0
		lo, hi := Bootstrap(10, Tail95, rand.New(rand.NewPCG(1, 1)), func(*rand.Rand) float64 {
			i++
			if i%2 == 0 {
				return math.NaN()
			}
			return float64(i)
		})
		if lo != 1 || hi != 9 {
			t.Errorf("interval %v–%v over 1, 3, 5, 7, 9, want 1–9", lo, hi)
		}
	})
	t.Run("no replicates", func(t *testing.T) {
		if lo, hi := Bootstrap(0, Tail95, rand.New(rand.NewPCG(1, 1)), func(*rand.Rand) float64 { return 1 }); !math.IsNaN(lo) || !math.IsNaN(hi) {
			t.Errorf("interval %v–%v from no replicates", lo, hi)
		}
	})
}

// FuzzGroupFolds groups labels drawn from the input and checks the split:
// every row in one fold of [0, k), no group across two, groups per fold
// within one of each other, and a resample made of whole groups.
func FuzzGroupFolds(f *testing.F) {
	f.Add([]byte("aabbbcdd"), uint8(3), uint64(1))
	f.Add([]byte("x"), uint8(1), uint64(7))
	f.Add([]byte{}, uint8(5), uint64(0))
	f.Fuzz(func(t *testing.T, raw []byte, kb uint8, seed uint64) {
		k := int(kb%8) + 1
		labels := make([]string, len(raw))
		for i, b := range raw {
			labels[i] = string(rune('a' + b%12))
		}
		g := GroupBy(labels)
		if g.Len() != len(labels) {
			t.Fatalf("groups hold %d rows of %d", g.Len(), len(labels))
		}
		fold := g.Folds(k, rand.New(rand.NewPCG(seed, 1)))
		per := make([]int, k)
		for gi, rows := range g.Rows {
			for _, r := range rows {
				if labels[r] != g.Names[gi] || fold[r] != fold[rows[0]] || fold[r] < 0 || fold[r] >= k {
					t.Fatalf("row %d (%s) in fold %d, its group %s in %d", r, labels[r], fold[r], g.Names[gi], fold[rows[0]])
				}
			}
			per[fold[rows[0]]]++
		}
		if len(g.Names) > 0 && slices.Max(per)-slices.Min(per) > 1 {
			t.Fatalf("groups per fold %v", per)
		}
		rs := g.Resample(rand.New(rand.NewPCG(seed, 2)), nil)
		count := map[int]int{}
		for _, r := range rs {
			count[r]++
		}
		for _, rows := range g.Rows {
			for _, r := range rows {
				if count[r] != count[rows[0]] {
					t.Fatalf("resample split group of row %d", rows[0])
				}
			}
		}
	})
}
