package stats

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"

	"gonum.org/v1/gonum/stat"
)

// Groups are rows grouped by a label (a run, a task): Names in the order
// they first appear, Rows[i] the ascending row indices of Names[i].
type Groups struct {
	Names []string
	Rows  [][]int
}

// GroupBy groups rows 0..len(labels)−1 by their label.
func GroupBy(labels []string) Groups {
	var g Groups
	at := map[string]int{}
	for i, l := range labels {
		k, ok := at[l]
		if !ok {
			k = len(g.Names)
			at[l] = k
			g.Names = append(g.Names, l)
			g.Rows = append(g.Rows, nil)
		}
		g.Rows[k] = append(g.Rows[k], i)
	}
	return g
}

// Sorted returns the groups ordered by name: the parts of a
// leave-one-group-out split in a stable order.
func (g Groups) Sorted() Groups {
	idx := make([]int, len(g.Names))
	for i := range idx {
		idx[i] = i
	}
	slices.SortFunc(idx, func(a, b int) int { return strings.Compare(g.Names[a], g.Names[b]) })
	out := Groups{Names: make([]string, len(idx)), Rows: make([][]int, len(idx))}
	for i, k := range idx {
		out.Names[i], out.Rows[i] = g.Names[k], g.Rows[k]
	}
	return out
}

// Len is the number of rows the groups hold.
func (g Groups) Len() int {
	n := 0
	for _, r := range g.Rows {
		n += len(r)
	}
	return n
}

// Folds splits the groups into k folds and returns each row's fold in
// [0, k): the groups are shuffled by rng and dealt round-robin, so a
// group's rows never straddle two folds and fold sizes in groups differ by
// at most one. k must be at least 1, and the groups must partition rows
// 0..Len()−1, as GroupBy's do.
func (g Groups) Folds(k int, rng *rand.Rand) []int {
	order := make([]int, len(g.Names))
	for i := range order {
		order[i] = i
	}
	rng.Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
	fold := make([]int, g.Len())
	for i, grp := range order {
		for _, r := range g.Rows[grp] {
			fold[r] = i % k
		}
	}
	return fold
}

// Resample appends to dst the rows of one bootstrap resample of the
// groups — as many groups as there are, drawn by rng with replacement,
// each with all its rows — and returns it. Resampling whole groups keeps
// rows that are not independent (the turns of one run) together.
func (g Groups) Resample(rng *rand.Rand, dst []int) []int {
	for range g.Names {
		dst = append(dst, g.Rows[rng.IntN(len(g.Names))]...)
	}
	return dst
}

// StratifiedFolds splits rows with labels y into k folds and returns each
// row's fold in [0, k): the positives and the negatives are shuffled apart
// by rng (positives first) and each dealt round-robin, so every fold holds
// each class to within one row. k must be at least 1.
func StratifiedFolds(y []bool, k int, rng *rand.Rand) []int {
	fold := make([]int, len(y))
	for _, cls := range []bool{true, false} {
		var idx []int
		for i, b := range y {
			if b == cls {
				idx = append(idx, i)
			}
		}
		rng.Shuffle(len(idx), func(a, b int) { idx[a], idx[b] = idx[b], idx[a] })
		for j, i := range idx {
			fold[i] = j % k
		}
	}
	return fold
}

// Tail95 is the probability in each tail of a two-sided 95% interval.
const Tail95 = 0.025

// Bootstrap returns the percentile interval of a statistic over reps
// bootstrap replicates, with probability tail outside it on each side
// (Tail95 for 95%): replicate draws one resample with rng
// (Groups.Resample) and returns the statistic on it. Replicates on which
// the statistic is undefined (NaN: a resample with one class) are left out;
// with none left, or reps ≤ 0, the interval is NaN, NaN.
func Bootstrap(reps int, tail float64, rng *rand.Rand, replicate func(*rand.Rand) float64) (lo, hi float64) {
	vals := make([]float64, 0, max(reps, 0))
	for range reps {
		if v := replicate(rng); !math.IsNaN(v) {
			vals = append(vals, v)
		}
	}
	return Percentiles(vals, tail)
}

// Percentiles returns the empirical tail and 1 − tail quantiles of vals
// (gonum's stat.Quantile, Empirical: the smallest value with at least that
// share of vals at or below it), the bounds of a percentile interval. vals
// is sorted in place. NaN, NaN when vals is empty or tail is outside
// (0, 0.5).
func Percentiles(vals []float64, tail float64) (lo, hi float64) {
	if len(vals) == 0 || !(tail > 0 && tail < 0.5) {
		return math.NaN(), math.NaN()
	}
	slices.Sort(vals)
	return stat.Quantile(tail, stat.Empirical, vals, nil), stat.Quantile(1-tail, stat.Empirical, vals, nil)
}
