package runner

import (
	"cmp"
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"slices"

	"github.com/killchain/killchain/internal/study"
)

// The order runs start in. The plan lists runs grid by grid, task by task,
// cell by cell and repeat by repeat; run in that order, a study whose last
// model is broken shows its errors only at the end, and a partial table
// covers the first cells only. The runner starts them in waves instead:
// the first wave holds one run of every cell, the second a second run of
// every cell that has one, and so on. Within a wave the cells are
// interleaved so that consecutive runs differ first in their model (or
// writer→reader pair), then in their task, then in their condition,
// defense, variant and grid: every model has a run among the first ones,
// every task soon after.
//
// The order depends only on the study's seed and on the runs to start: the
// same study (or the same resume) starts its runs in the same order. It
// changes neither a run's id, nor its canary, nor the plan's hash: a run
// is the same run whenever it starts.

// scheduleDims are the dimensions cells are interleaved along, the first
// varying fastest.
var scheduleDims = []func(study.Run) string{
	func(r study.Run) string { return r.Models() },
	func(r study.Run) string { return r.Task },
	func(r study.Run) string { return r.Condition },
	func(r study.Run) string { return r.Defense },
	func(r study.Run) string { return r.Variant },
	func(r study.Run) string { return r.Grid },
}

// schedule returns runs in the order they start: in waves over their
// cells, the cells interleaved, seeded by seed.
func schedule(seed int64, runs []study.Run) []study.Run {
	if len(runs) < 2 {
		return runs
	}
	cells := map[string][]study.Run{}
	var keys []string
	for _, r := range runs {
		if _, ok := cells[r.Cell]; !ok {
			keys = append(keys, r.Cell)
		}
		cells[r.Cell] = append(cells[r.Cell], r)
	}
	reps := 0
	for _, rs := range cells {
		slices.SortStableFunc(rs, func(a, b study.Run) int { return cmp.Compare(a.Repeat, b.Repeat) })
		reps = max(reps, len(rs))
	}
	order := interleaveCells(seed, keys, func(k string) study.Run { return cells[k][0] })
	out := make([]study.Run, 0, len(runs))
	for wave := range reps {
		for _, k := range order {
			if rs := cells[k]; wave < len(rs) {
				out = append(out, rs[wave])
			}
		}
	}
	return out
}

// interleaveCells orders cell keys, each represented by one of its runs,
// so that consecutive cells differ along scheduleDims, the first fastest.
func interleaveCells(seed int64, keys []string, of func(string) study.Run) []string {
	o := orderer{seed: seed, of: of, ranks: map[rankKey]uint64{}}
	return o.interleave(keys, 0, 0)
}

// orderer interleaves the cells of one study, its ranks computed once.
type orderer struct {
	seed  int64
	of    func(string) study.Run
	ranks map[rankKey]uint64
}

type rankKey struct {
	dim int
	v   string
}

// interleave orders keys along the dimensions from dim on: it groups them
// by their value there, orders each group along the next dimensions, and
// takes one key from each group in turn (a round robin), starting at the
// group offset; each group's own round robin starts one further on, so
// that the first keys of neighbouring groups differ in the next dimension
// too. Groups, and the keys of one cell, are ranked by a hash of the seed
// and their value: the same seed gives the same order.
func (o *orderer) interleave(keys []string, dim, offset int) []string {
	if len(keys) < 2 {
		return keys
	}
	if dim == len(scheduleDims) {
		out := slices.Clone(keys)
		slices.SortFunc(out, func(a, b string) int {
			return cmp.Or(cmp.Compare(o.rank(dim, a), o.rank(dim, b)), cmp.Compare(a, b))
		})
		return out
	}
	groups := map[string][]string{}
	var values []string
	for _, k := range keys {
		v := scheduleDims[dim](o.of(k))
		if _, ok := groups[v]; !ok {
			values = append(values, v)
		}
		groups[v] = append(groups[v], k)
	}
	if len(values) == 1 {
		return o.interleave(keys, dim+1, offset)
	}
	slices.SortFunc(values, func(a, b string) int {
		return cmp.Or(cmp.Compare(o.rank(dim, a), o.rank(dim, b)), cmp.Compare(a, b))
	})
	subs := make([][]string, len(values))
	for i, v := range values {
		j := (i + offset) % len(values)
		subs[j] = o.interleave(groups[v], dim+1, offset+j)
	}
	out := make([]string, 0, len(keys))
	for k := 0; len(out) < len(keys); k++ {
		for _, s := range subs {
			if k < len(s) {
				out = append(out, s[k])
			}
		}
	}
	return out
}

// rank is a value's place among the values of one dimension: a hash of
// the study's seed, the dimension and the value.
func (o *orderer) rank(dim int, v string) uint64 {
	k := rankKey{dim, v}
	if r, ok := o.ranks[k]; ok {
		return r
	}
	sum := sha256.Sum256(fmt.Appendf(nil, "schedule\x00%d\x00%d\x00%s", o.seed, dim, v))
	r := binary.BigEndian.Uint64(sum[:8])
	o.ranks[k] = r
	return r
}
