package study

import (
	"cmp"
	"math/rand/v2"
	"slices"
	"strings"
)

// Stratum is the kind of cell a run belongs to, the unit a sample
// represents: task/condition/defense (suite/user task/condition/defense for
// a run of a suite). The task fixes the surface family and the mode (single
// agent, relay or pipeline), the condition whether a payload is planted;
// models, pairs, variants (a suite's injections and attacks) and repeats
// vary within a stratum.
func Stratum(r Run) string {
	if r.Suite != "" {
		return strings.Join([]string{r.Suite, r.Task, r.Condition, r.Defense}, "/")
	}
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
//     round-robin across the suites and the tasks outside suites (in plan
//     order; the strata of each in seeded order), so that as many suites and
//     tasks as possible are represented. A suite's first stratum is an
//     attacked one (a user task × injection pair) and its second the same
//     user task's clean control where the plan has both, so n of at least
//     twice the suites and tasks gives every suite a pair and a clean
//     control; with n below the suites and tasks, the first n in plan order
//     get one run each and the rest none.
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

// stratum is one stratum's runs, as indices into the plan: its task, its
// suite ("" outside suites) and whether its runs are attacked.
type stratum struct {
	task, suite string
	attacked    bool
	runs        []int
	plan        []Run
}

// unit is what the round-robin of a small sample takes turns over: the
// suite of a suite's strata, the task of any other.
func (st *stratum) unit() string {
	if st.suite != "" {
		return "suite\x00" + st.suite
	}
	return "task\x00" + st.task
}

// stratify groups runs by Stratum, in order of first appearance.
func stratify(runs []Run) []*stratum {
	var out []*stratum
	by := map[string]*stratum{}
	for i, r := range runs {
		k := Stratum(r)
		st, ok := by[k]
		if !ok {
			st = &stratum{task: r.Task, suite: r.Suite, attacked: r.Attacked, plan: runs}
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
// unit (a suite, or a task outside suites) in turn, units in plan order,
// each unit's strata in seeded order; a suite's begin with an attacked
// stratum and its user task's clean control (suiteFirst).
func roundRobin(strata []*stratum, rng *rand.Rand) []int {
	var units []string
	byUnit := map[string][]int{}
	for i, st := range strata {
		u := st.unit()
		if _, ok := byUnit[u]; !ok {
			units = append(units, u)
		}
		byUnit[u] = append(byUnit[u], i)
	}
	for _, u := range units {
		l := byUnit[u]
		rng.Shuffle(len(l), func(i, j int) { l[i], l[j] = l[j], l[i] })
		if strata[l[0]].suite != "" {
			suiteFirst(l, strata)
		}
	}
	out := make([]int, 0, len(strata))
	for round := 0; len(out) < len(strata); round++ {
		for _, u := range units {
			if l := byUnit[u]; round < len(l) {
				out = append(out, l[round])
			}
		}
	}
	return out
}

// suiteFirst moves to the front of a suite's shuffled strata its first
// attacked stratum, then a clean stratum of the same user task (else its
// first clean one), keeping the shuffled order otherwise.
func suiteFirst(l []int, strata []*stratum) {
	toFront := func(from, pos int) {
		if from > pos {
			v := l[from]
			copy(l[pos+1:from+1], l[pos:from])
			l[pos] = v
		}
	}
	a := slices.IndexFunc(l, func(i int) bool { return strata[i].attacked })
	if a < 0 {
		return
	}
	toFront(a, 0)
	task := strata[l[0]].task
	c := slices.IndexFunc(l[1:], func(i int) bool { return !strata[i].attacked && strata[i].task == task })
	if c < 0 {
		c = slices.IndexFunc(l[1:], func(i int) bool { return !strata[i].attacked })
	}
	if c >= 0 {
		toFront(c+1, 1)
	}
}

// SuiteCoverage says how a sample represents the suites of the runs it was
// drawn from: the suites it keeps no run of (missing), and those it keeps
// without an attacked run or without a clean control although the runs had
// both (partial), each in plan order.
func SuiteCoverage(runs, sample []Run) (missing, partial []string) {
	type has struct{ clean, attacked bool }
	from, kept := map[string]*has{}, map[string]*has{}
	var order []string
	mark := func(m map[string]*has, r Run) {
		h := m[r.Suite]
		if h == nil {
			h = &has{}
			m[r.Suite] = h
		}
		h.attacked = h.attacked || r.Attacked
		h.clean = h.clean || !r.Attacked
	}
	for _, r := range runs {
		if r.Suite == "" {
			continue
		}
		if from[r.Suite] == nil {
			order = append(order, r.Suite)
		}
		mark(from, r)
	}
	for _, r := range sample {
		if r.Suite != "" {
			mark(kept, r)
		}
	}
	for _, su := range order {
		f, k := from[su], kept[su]
		switch {
		case k == nil:
			missing = append(missing, su)
		case f.attacked && !k.attacked || f.clean && !k.clean:
			partial = append(partial, su)
		}
	}
	return missing, partial
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
