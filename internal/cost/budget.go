package cost

import (
	"fmt"
	"sync"
)

// Budget keeps a study under its cost limit. Before a run starts, the
// runner reserves the run's estimated cost; when what was spent, what the
// runs in flight reserved and the estimate together could pass the limit,
// the reservation waits for the runs in flight to settle (their costs may
// lower the estimate) and is refused when it could still pass the limit
// with none in flight. When a run is recorded its reservation is settled
// with what it actually cost. A Budget with no limit refuses nothing and
// still counts what was spent. It is safe for concurrent use.
type Budget struct {
	mu       sync.Mutex
	settled  *sync.Cond
	limit    float64 // 0: none
	spent    float64
	reserved float64
	inFlight int
	refused  bool
	// need is the sum that was refused: spent + estimate.
	need float64
}

// NewBudget returns a budget of limit dollars (0: no limit) of which spent
// were already spent (the runs a resumed study recorded).
func NewBudget(limit, spent float64) *Budget {
	b := &Budget{limit: limit, spent: spent}
	b.settled = sync.NewCond(&b.mu)
	return b
}

// Reserve books the estimated cost of a run about to start, asking
// estimate afresh after each wait; false when the run could pass the
// limit with no run in flight, and from then on every later call is
// refused too (a study that stopped starting runs does not start smaller
// ones). stop, checked after each wait, ends it with false without
// marking the budget refused (an interrupted study).
func (b *Budget) Reserve(estimate func() float64, stop func() bool) (float64, bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for {
		if b.refused || stop() {
			return 0, false
		}
		est := estimate()
		if b.limit <= 0 || b.spent+b.reserved+est <= b.limit {
			b.reserved += est
			b.inFlight++
			return est, true
		}
		if b.inFlight == 0 {
			b.refused = true
			b.need = b.spent + est
			return 0, false
		}
		b.settled.Wait()
	}
}

// Settle replaces a run's reservation by what it cost.
func (b *Budget) Settle(estimate, actual float64) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.reserved = max(0, b.reserved-estimate)
	b.spent += actual
	b.inFlight--
	b.settled.Broadcast()
}

// Release drops a reservation whose run was never recorded (interrupted).
func (b *Budget) Release(estimate float64) { b.Settle(estimate, 0) }

// Spent is what the study spent so far.
func (b *Budget) Spent() float64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.spent
}

// Limit is the budget's limit, 0 when it has none.
func (b *Budget) Limit() float64 { return b.limit }

// Reached reports whether a reservation was refused.
func (b *Budget) Reached() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.refused
}

// Reason says why the budget stopped the study, or "" when it did not.
func (b *Budget) Reason() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	if !b.refused {
		return ""
	}
	next := "bring it to " + Dollars(b.need)
	if Dollars(b.need) == Dollars(b.limit) {
		// Written to the cent, the two would read the same.
		next = "pass it"
	}
	return fmt.Sprintf("cost limit %s reached: %s spent, and the next run could %s",
		Dollars(b.limit), Dollars(b.spent), next)
}
