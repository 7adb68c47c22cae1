package cost

import (
	"fmt"
	"sync"
)

// Budget keeps a study under its cost limit. Before a run starts, the
// runner reserves the run's estimated cost; the reservation is refused
// when what was spent, what runs in flight have reserved and the estimate
// together would pass the limit. When a run is recorded its reservation is
// settled with what it actually cost. A Budget with no limit refuses
// nothing and still counts what was spent. It is safe for concurrent use.
type Budget struct {
	mu       sync.Mutex
	limit    float64 // 0: none
	spent    float64
	reserved float64
	refused  bool
	// need is the sum that was refused: spent + reserved + estimate.
	need float64
}

// NewBudget returns a budget of limit dollars (0: no limit) of which spent
// were already spent (the runs a resumed study recorded).
func NewBudget(limit, spent float64) *Budget {
	return &Budget{limit: limit, spent: spent}
}

// Reserve books estimate dollars for a run about to start; false when the
// run could pass the limit, and from then on every later call is refused
// too (a study that stopped starting runs does not start smaller ones).
func (b *Budget) Reserve(estimate float64) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.refused {
		return false
	}
	if b.limit > 0 && b.spent+b.reserved+estimate > b.limit {
		b.refused = true
		b.need = b.spent + b.reserved + estimate
		return false
	}
	b.reserved += estimate
	return true
}

// Settle replaces a run's reservation by what it cost.
func (b *Budget) Settle(estimate, actual float64) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.reserved = max(0, b.reserved-estimate)
	b.spent += actual
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
	return fmt.Sprintf("cost limit %s reached: %s spent, and the next run could bring it to %s",
		Dollars(b.limit), Dollars(b.spent), Dollars(b.need))
}
