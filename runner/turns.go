package runner

import (
	"cmp"
	"container/heap"
	"context"
	"sync"
)

// turns hands a study's concurrency to the adaptive cells' runs in order of
// priority: the runs of earlier rounds first, then the runs of one round in
// waves (each cell's first run of the round, then its second, …), the cells
// in their interleaved order (schedule.go). A cell still proposes its
// rounds one after the other; turns only decides which of the runs waiting
// for a slot starts next, so that the first wave holds a run of every cell.
//
// Until every cell has queued its first round (or ended), no turn is given:
// the first cells to get going would otherwise take every slot.
type turns struct {
	mu      sync.Mutex
	free    int // slots not taken
	pending int // cells that have not queued their first round yet
	waiting ticketHeap
	seq     int // tickets queued so far, the last tie-break
}

// newTurns returns turns over slots slots for cells cells.
func newTurns(slots, cells int) *turns {
	return &turns{free: max(1, slots), pending: cells}
}

// priority orders tickets: lower first.
type priority struct{ round, wave, cell int }

// ticket is one run's place in line.
type ticket struct {
	t         *turns
	prio      priority
	seq       int
	ch        chan struct{} // closed when the run gets its slot
	granted   bool
	abandoned bool
}

// queue puts a run of the given priority in line; wait for its turn on
// the ticket, then release the slot.
func (t *turns) queue(p priority) *ticket {
	t.mu.Lock()
	defer t.mu.Unlock()
	tk := &ticket{t: t, prio: p, seq: t.seq, ch: make(chan struct{})}
	t.seq++
	heap.Push(&t.waiting, tk)
	t.dispatch()
	return tk
}

// ready says a cell has queued its first round's runs, or will queue none.
// Each cell calls it once.
func (t *turns) ready() {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.pending--
	t.dispatch()
}

// release frees a slot taken by a granted ticket.
func (t *turns) release() {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.free++
	t.dispatch()
}

// dispatch gives free slots to the first tickets in line; t.mu is held.
func (t *turns) dispatch() {
	for t.pending <= 0 && t.free > 0 && t.waiting.Len() > 0 {
		tk := heap.Pop(&t.waiting).(*ticket)
		if tk.abandoned {
			continue
		}
		tk.granted = true
		t.free--
		close(tk.ch)
	}
}

// wait blocks until the ticket's run may start (true) or ctx is done
// (false; the ticket leaves the line, or its slot is freed at once).
func (tk *ticket) wait(ctx context.Context) bool {
	select {
	case <-tk.ch:
		return true
	case <-ctx.Done():
	}
	t := tk.t
	t.mu.Lock()
	granted := tk.granted
	tk.abandoned = !granted
	t.mu.Unlock()
	if granted {
		t.release()
	}
	return false
}

// ticketHeap is a min-heap of tickets by priority, then by when queued.
type ticketHeap []*ticket

func (h ticketHeap) Len() int { return len(h) }
func (h ticketHeap) Less(i, j int) bool {
	a, b := h[i], h[j]
	return cmp.Or(cmp.Compare(a.prio.round, b.prio.round), cmp.Compare(a.prio.wave, b.prio.wave),
		cmp.Compare(a.prio.cell, b.prio.cell), cmp.Compare(a.seq, b.seq)) < 0
}
func (h ticketHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *ticketHeap) Push(x any)   { *h = append(*h, x.(*ticket)) }
func (h *ticketHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}
