package report

import (
	"cmp"
	"hash/fnv"
	"slices"

	"github.com/killchain/killchain/internal/results"
)

// pickedRun is a run chosen for a per-run view, with why it was flagged
// ("" when it was not).
type pickedRun struct {
	run results.Run
	why string
}

// picker chooses the runs of the per-run views while the runs stream by:
// every run when there are at most maxAll; otherwise the flagged runs (the
// maxAll smallest ids) and a sample of unflagged runs (the sample with the
// smallest hash of their id, so the choice does not depend on file order).
type picker struct {
	maxAll, sample int
	n              int
	all            []pickedRun
	flagged        []pickedRun // sorted by run id
	sampled        []hashedRun // sorted by hash, then id
}

type hashedRun struct {
	h uint64
	pickedRun
}

func newPicker(maxAll, sample int) *picker {
	return &picker{maxAll: max(maxAll, 0), sample: max(sample, 0)}
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

// add offers one run; why is an extra reason from the analysis ("" none).
func (p *picker) add(r *results.Run, why string) {
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
		p.all = append(p.all, pickedRun{run: *r, why: why})
	} else {
		p.all = nil
	}
	if why != "" {
		p.flagged = insertBounded(p.flagged, pickedRun{run: *r, why: why}, p.maxAll, func(a, b pickedRun) int {
			return cmp.Compare(a.run.RunID, b.run.RunID)
		})
		return
	}
	h := fnv.New64a()
	h.Write([]byte(r.RunID))
	p.sampled = insertBounded(p.sampled, hashedRun{h.Sum64(), pickedRun{run: *r}}, p.sample, func(a, b hashedRun) int {
		return cmp.Or(cmp.Compare(a.h, b.h), cmp.Compare(a.run.RunID, b.run.RunID))
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

// result returns the picked runs sorted by run id.
func (p *picker) result() []pickedRun {
	var out []pickedRun
	if p.n <= p.maxAll {
		out = p.all
	} else {
		out = append(out, p.flagged...)
		for _, s := range p.sampled {
			out = append(out, s.pickedRun)
		}
	}
	slices.SortFunc(out, func(a, b pickedRun) int { return cmp.Compare(a.run.RunID, b.run.RunID) })
	return out
}
