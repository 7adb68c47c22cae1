package runview

import (
	"cmp"
	"hash/fnv"
	"slices"

	"github.com/killchain/killchain/internal/results"
)

// Picked is a run chosen for a per-run view, with why it was flagged
// ("" when it was not).
type Picked struct {
	Run results.Run
	Why string
}

// Picker chooses the runs of the per-run views while the runs stream by:
// every run when there are at most maxAll; otherwise the flagged runs (the
// maxAll smallest ids) and a sample of unflagged runs (the sample with the
// smallest hash of their id, so the choice does not depend on file order).
type Picker struct {
	maxAll, sample int
	n              int
	all            []Picked
	flagged        []Picked    // sorted by run id
	sampled        []hashedRun // sorted by hash, then id
}

type hashedRun struct {
	h uint64
	Picked
}

// NewPicker returns a Picker that keeps every run of a study of at most
// maxAll runs; of a larger one, at most maxAll flagged runs and sample
// others.
func NewPicker(maxAll, sample int) *Picker {
	return &Picker{maxAll: max(maxAll, 0), sample: max(sample, 0)}
}

// flagRun says why a run deserves a look regardless of sampling.
func flagRun(r *results.Run) string {
	exec := results.Is(r.Executed)
	switch {
	case r.Error != "":
		return "error: " + string(r.ErrorKind)
	case r.Contaminated:
		return "canary-shaped string in a " + map[bool]string{true: "run with another canary", false: "clean run"}[r.Attacked]
	case !r.Attacked && (exec || r.AttackGoal):
		return "clean run executed or reached the attack goal"
	case exec && r.Exposed != nil && !*r.Exposed:
		return "Executed without Exposed"
	case r.AttackGoal && !exec:
		return "attack goal without Executed"
	case exec && !r.AttackGoal:
		return "Executed without attack goal"
	}
	return ""
}

// Add offers one run; why is an extra reason from the analysis ("" none).
func (p *Picker) Add(r *results.Run, why string) {
	if p.maxAll == 0 {
		return
	}
	p.n++
	if w := flagRun(r); w != "" {
		if why == "" {
			why = w
		} else {
			why = w + "; " + why
		}
	}
	if p.n <= p.maxAll {
		p.all = append(p.all, Picked{Run: *r, Why: why})
	} else {
		p.all = nil
	}
	if why != "" {
		p.flagged = insertBounded(p.flagged, Picked{Run: *r, Why: why}, p.maxAll, func(a, b Picked) int {
			return cmp.Compare(a.Run.RunID, b.Run.RunID)
		})
		return
	}
	h := fnv.New64a()
	h.Write([]byte(r.RunID))
	p.sampled = insertBounded(p.sampled, hashedRun{h.Sum64(), Picked{Run: *r}}, p.sample, func(a, b hashedRun) int {
		return cmp.Or(cmp.Compare(a.h, b.h), cmp.Compare(a.Run.RunID, b.Run.RunID))
	})
}

// insertBounded inserts x into the sorted list and keeps the n first.
func insertBounded[T any](list []T, x T, n int, cmpf func(a, b T) int) []T {
	if n <= 0 || (len(list) == n && cmpf(x, list[n-1]) >= 0) {
		return list
	}
	i, _ := slices.BinarySearchFunc(list, x, cmpf)
	list = slices.Insert(list, i, x)
	if len(list) > n {
		list = list[:n]
	}
	return list
}

// Result returns the picked runs sorted by run id.
func (p *Picker) Result() []Picked {
	var out []Picked
	if p.n <= p.maxAll {
		out = p.all
	} else {
		out = append(out, p.flagged...)
		for _, s := range p.sampled {
			out = append(out, s.Picked)
		}
	}
	slices.SortFunc(out, func(a, b Picked) int { return cmp.Compare(a.Run.RunID, b.Run.RunID) })
	return out
}
