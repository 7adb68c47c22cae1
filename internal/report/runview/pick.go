package runview

import (
	"cmp"
	"container/heap"
	"hash/fnv"
	"slices"
	"strings"

	"github.com/killchain/killchain/internal/results"
)

// Picked is a run of the report's run list, with why it was flagged ("" when
// it was not) and whether it gets a page of its own (runs/<run_id>.html).
type Picked struct {
	Run  results.Run
	Why  string
	Page bool
}

// Picking says which runs the report lists and which of those get a page.
type Picking struct {
	// All: a study of at most this many runs lists every run; a larger
	// one lists its flagged runs (at most All, the smallest run ids) and
	// Sample others.
	All, Sample int
	// PerCell: the first PerCell listed runs of each cell (by repeat, then
	// run id) get a page, beside every listed run that errored, was flagged
	// or executed; at most MaxPages pages in all, spread over the cells
	// (each cell's most telling run first, then each cell's second, …).
	PerCell, MaxPages int
}

// Picker chooses the runs of the run list while the runs stream by: every
// run when there are at most All; otherwise the flagged runs (the All
// smallest ids) and a sample of unflagged runs (the sample with the
// smallest hash of their id, so the choice does not depend on file order).
type Picker struct {
	opts    Picking
	n       int
	all     []Picked
	flagged boundedHeap[string]
	sampled boundedHeap[sampleKey]
}

// sampleKey orders the sampled runs: by the hash of their id, then the id.
type sampleKey struct {
	h  uint64
	id string
}

// NewPicker returns a Picker for the given choice.
func NewPicker(p Picking) *Picker {
	p.All, p.Sample = max(p.All, 0), max(p.Sample, 0)
	return &Picker{opts: p,
		flagged: boundedHeap[string]{n: p.All, less: func(a, b string) bool { return a < b }},
		sampled: boundedHeap[sampleKey]{n: p.Sample, less: func(a, b sampleKey) bool {
			return cmp.Or(cmp.Compare(a.h, b.h), cmp.Compare(a.id, b.id)) < 0
		}},
	}
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
	if p.opts.All == 0 {
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
	if p.n <= p.opts.All {
		p.all = append(p.all, Picked{Run: *r, Why: why})
	} else {
		p.all = nil
	}
	if why != "" {
		p.flagged.add(r.RunID, func() Picked { return Picked{Run: *r, Why: why} })
		return
	}
	if p.opts.Sample == 0 {
		return
	}
	h := fnv.New64a()
	h.Write([]byte(r.RunID))
	p.sampled.add(sampleKey{h.Sum64(), r.RunID}, func() Picked { return Picked{Run: *r} })
}

// Result returns the listed runs sorted by run id, with their pages marked.
func (p *Picker) Result() []Picked {
	var out []Picked
	if p.n <= p.opts.All {
		out = p.all
	} else {
		out = append(p.flagged.items(), p.sampled.items()...)
	}
	slices.SortFunc(out, func(a, b Picked) int { return cmp.Compare(a.Run.RunID, b.Run.RunID) })
	p.pages(out)
	return out
}

// pages marks the listed runs that get a page: in each cell, the runs
// that errored or were flagged, then those that executed (or reached the
// attack goal), then the first PerCell others; taken over the cells in
// turn (every cell's first, then every cell's second, …) up to MaxPages.
func (p *Picker) pages(runs []Picked) {
	type cand struct {
		i, class, turn int
	}
	byCell := map[string][]cand{}
	var cells []string
	for i := range runs {
		r := &runs[i].Run
		class := 2
		switch {
		case runs[i].Why != "":
			class = 0
		case results.Is(r.Executed) || r.AttackGoal:
			class = 1
		}
		k := CellOf(r)
		if _, ok := byCell[k]; !ok {
			cells = append(cells, k)
		}
		byCell[k] = append(byCell[k], cand{i: i, class: class})
	}
	var all []cand
	for _, k := range cells {
		cs := byCell[k]
		slices.SortFunc(cs, func(a, b cand) int {
			ra, rb := &runs[a.i].Run, &runs[b.i].Run
			return cmp.Or(cmp.Compare(a.class, b.class), cmp.Compare(ra.Repeat, rb.Repeat), cmp.Compare(ra.RunID, rb.RunID))
		})
		others := 0
		for t, c := range cs {
			if c.class == 2 {
				if others >= p.opts.PerCell {
					continue
				}
				others++
			}
			c.turn = t
			all = append(all, c)
		}
	}
	slices.SortFunc(all, func(a, b cand) int {
		return cmp.Or(cmp.Compare(a.turn, b.turn), cmp.Compare(a.class, b.class), cmp.Compare(runs[a.i].Run.RunID, runs[b.i].Run.RunID))
	})
	for _, c := range all[:min(len(all), max(p.opts.MaxPages, 0))] {
		runs[c.i].Page = true
	}
}

// CellOf is the key of a run's cell: its recorded cell, or for a record
// without one (an import) its grid, task, variant, models, condition and
// defense.
func CellOf(r *results.Run) string {
	if r.Cell != "" {
		return r.Cell
	}
	return strings.Join([]string{r.Grid, r.Task, r.Variant, r.ModelA, r.ModelB, r.Condition, r.Defense}, "/")
}

// boundedHeap keeps the n least keys offered, with their runs: a max-heap
// of at most n, so that a key that would not stay costs one comparison
// and a run is copied only when it stays.
type boundedHeap[K any] struct {
	n    int
	less func(a, b K) bool
	keys []K
	runs []*Picked
}

// add offers key, whose run copies it; it is copied only when it stays.
func (h *boundedHeap[K]) add(key K, run func() Picked) {
	if h.n <= 0 {
		return
	}
	if len(h.keys) == h.n {
		if !h.less(key, h.keys[0]) {
			return
		}
		p := run()
		h.keys[0], h.runs[0] = key, &p
		heap.Fix(h, 0)
		return
	}
	p := run()
	heap.Push(h, entry[K]{key, &p})
}

// items returns the runs kept, in no order.
func (h *boundedHeap[K]) items() []Picked {
	out := make([]Picked, len(h.runs))
	for i, p := range h.runs {
		out[i] = *p
	}
	return out
}

type entry[K any] struct {
	key K
	run *Picked
}

func (h *boundedHeap[K]) Len() int           { return len(h.keys) }
func (h *boundedHeap[K]) Less(i, j int) bool { return h.less(h.keys[j], h.keys[i]) } // the greatest on top
func (h *boundedHeap[K]) Swap(i, j int) {
	h.keys[i], h.keys[j] = h.keys[j], h.keys[i]
	h.runs[i], h.runs[j] = h.runs[j], h.runs[i]
}
func (h *boundedHeap[K]) Push(x any) {
	e := x.(entry[K])
	h.keys, h.runs = append(h.keys, e.key), append(h.runs, e.run)
}
func (h *boundedHeap[K]) Pop() any {
	n := len(h.keys) - 1
	e := entry[K]{h.keys[n], h.runs[n]}
	h.keys, h.runs = h.keys[:n], h.runs[:n]
	return e
}
