package study

import (
	"cmp"
	"math/rand/v2"
	"slices"
	"strings"
)

// Stratum is the kind of cell a run belongs to, the unit a sample
// represents: task/condition/defense. The task fixes the surface family and
// the mode (single agent or relay), the condition whether a payload is
// planted; models, pairs, variants and repeats vary within a stratum.
func Stratum(r Run) string {
	return strings.Join([]string{r.Task, r.Condition, r.Defense}, "/")
}

// Strata counts the distinct strata of runs.
func Strata(runs []Run) int {
	seen := map[string]bool{}
	for _, r := range runs {
		seen[Stratum(r)] = true
	}
	return len(seen)
}

// sampleStream is the second word of the sample's PCG state, fixed so that
// a seed alone decides the sample.
const sampleStream = 0x6b696c6c636861 // "killcha"

// Sample keeps at most n of runs, stratified by Stratum and deterministic
// for a seed, in the runs' order:
//
//   - n ≥ len(runs) keeps every run;
//   - n ≥ the number of strata gives every stratum one run, then shares the
//     rest among the strata in proportion to the runs each has left
//     (largest remainder, ties broken by the seed);
//   - n below the number of strata gives one run to each of n strata, taken
//     round-robin across the tasks (in plan order; the strata of a task in
//     seeded order), so that as many tasks as possible are represented.
//
// Within a stratum, runs are taken in seeded order, one per cell before a
// cell's second repeat, so models, pairs and variants spread out.
func Sample(runs []Run, n int, seed int64) []Run {
	if n <= 0 {
		return nil
	}
	if n >= len(runs) {
		return slices.Clone(runs)
	}
	rng := rand.New(rand.NewPCG(uint64(seed), sampleStream))
	strata := stratify(runs)
	for _, st := range strata {
		st.order(rng)
	}

	alloc := make([]int, len(strata))
	if n < len(strata) {
		for _, i := range roundRobin(strata, rng)[:n] {
			alloc[i] = 1
		}
	} else {
		share(strata, alloc, n, rng)
	}

	keep := make([]bool, len(runs))
	for i, st := range strata {
		for _, idx := range st.runs[:alloc[i]] {
			keep[idx] = true
		}
	}
	out := make([]Run, 0, n)
	for i, r := range runs {
		if keep[i] {
			out = append(out, r)
		}
	}
	return out
}

// stratum is one stratum's runs, as indices into the plan.
type stratum struct {
	task string
	runs []int
	plan []Run
}

// stratify groups runs by Stratum, in order of first appearance.
func stratify(runs []Run) []*stratum {
	var out []*stratum
	by := map[string]*stratum{}
	for i, r := range runs {
		k := Stratum(r)
		st, ok := by[k]
		if !ok {
			st = &stratum{task: r.Task, plan: runs}
			by[k] = st
			out = append(out, st)
		}
		st.runs = append(st.runs, i)
	}
	return out
}

// order shuffles the stratum's runs, then puts every cell's first run
// before any cell's second, keeping the shuffled order otherwise.
func (st *stratum) order(rng *rand.Rand) {
	rng.Shuffle(len(st.runs), func(i, j int) { st.runs[i], st.runs[j] = st.runs[j], st.runs[i] })
	rank := make(map[int]int, len(st.runs))
	seen := map[string]int{}
	for _, idx := range st.runs {
		cell := st.plan[idx].Cell
		rank[idx] = seen[cell]
		seen[cell]++
	}
	slices.SortStableFunc(st.runs, func(a, b int) int { return cmp.Compare(rank[a], rank[b]) })
}

// roundRobin orders the strata's indices by taking one stratum of each
// task in turn, tasks in plan order, each task's strata in seeded order.
func roundRobin(strata []*stratum, rng *rand.Rand) []int {
	var tasks []string
	byTask := map[string][]int{}
	for i, st := range strata {
		if _, ok := byTask[st.task]; !ok {
			tasks = append(tasks, st.task)
		}
		byTask[st.task] = append(byTask[st.task], i)
	}
	for _, t := range tasks {
		l := byTask[t]
		rng.Shuffle(len(l), func(i, j int) { l[i], l[j] = l[j], l[i] })
	}
	out := make([]int, 0, len(strata))
	for round := 0; len(out) < len(strata); round++ {
		for _, t := range tasks {
			if l := byTask[t]; round < len(l) {
				out = append(out, l[round])
			}
		}
	}
	return out
}

// share sets alloc to one run per stratum plus a share of the remaining
// n - len(strata) runs proportional to each stratum's runs beyond its
// first, by largest remainder; ties go in seeded order. It needs
// len(strata) ≤ n < the number of runs.
func share(strata []*stratum, alloc []int, n int, rng *rand.Rand) {
	rest, capacity := n-len(strata), 0
	for i, st := range strata {
		alloc[i] = 1
		capacity += len(st.runs) - 1
	}
	if rest == 0 || capacity == 0 {
		return
	}
	rem := make([]int, len(strata))
	left := rest
	for i, st := range strata {
		q := rest * (len(st.runs) - 1)
		alloc[i] += q / capacity
		rem[i] = q % capacity
		left -= q / capacity
	}
	// rest < capacity, so a stratum with a remainder has room for one more,
	// and more strata have a remainder than runs are left.
	idx := rng.Perm(len(strata))
	slices.SortStableFunc(idx, func(a, b int) int { return cmp.Compare(rem[b], rem[a]) })
	for _, i := range idx[:left] {
		alloc[i]++
	}
}
