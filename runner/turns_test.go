package runner

import (
	"context"
	"slices"
	"testing"
	"time"
)

// TestTurns: no run starts before every cell has queued its first round;
// then slots go to the waiting runs by round, place in the round and
// cell, whatever the order they were queued in; a run whose context ends
// leaves the line.
func TestTurns(t *testing.T) {
	tests := []struct {
		name  string
		slots int
		queue []priority
		want  []priority // in the order their turns come
	}{
		{"one slot, waves over cells", 1,
			[]priority{{0, 0, 1}, {0, 1, 1}, {0, 0, 0}, {0, 1, 0}, {0, 0, 2}},
			[]priority{{0, 0, 0}, {0, 0, 1}, {0, 0, 2}, {0, 1, 0}, {0, 1, 1}}},
		{"earlier rounds first", 1,
			[]priority{{1, 0, 0}, {0, 3, 2}, {2, 0, 1}},
			[]priority{{0, 3, 2}, {1, 0, 0}, {2, 0, 1}}},
		{"two slots", 2,
			[]priority{{0, 1, 0}, {0, 0, 1}, {0, 0, 0}, {0, 1, 1}},
			[]priority{{0, 0, 0}, {0, 0, 1}, {0, 1, 0}, {0, 1, 1}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tu := newTurns(tt.slots, 2)
			var tickets []*ticket
			for _, p := range tt.queue {
				tickets = append(tickets, tu.queue(p))
			}
			tu.ready()
			if granted(tickets) > 0 {
				t.Fatal("a turn was given before every cell was ready")
			}
			tu.ready()
			// The turns given, in order: those given at once sorted by
			// priority; each release ends the earliest run holding a slot.
			var got []priority
			var held []*ticket
			seen := map[*ticket]bool{}
			for {
				var now []*ticket
				for _, tk := range tickets {
					if tk.granted && !seen[tk] {
						seen[tk] = true
						now = append(now, tk)
					}
				}
				slices.SortFunc(now, func(a, b *ticket) int {
					if ticketHeap([]*ticket{a, b}).Less(0, 1) {
						return -1
					}
					return 1
				})
				for _, tk := range now {
					got = append(got, tk.prio)
				}
				held = append(held, now...)
				if len(held) > tt.slots {
					t.Fatalf("%d runs hold a slot of %d", len(held), tt.slots)
				}
				if len(held) == 0 {
					break
				}
				held = held[1:]
				tu.release()
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("turns %v, want %v", got, tt.want)
			}
		})
	}

	t.Run("a cancelled run leaves the line", func(t *testing.T) {
		tu := newTurns(1, 0)
		first := tu.queue(priority{0, 0, 0})
		gone := tu.queue(priority{0, 1, 0})
		next := tu.queue(priority{0, 2, 0})
		ctx, cancel := context.WithCancel(t.Context())
		cancel()
		if gone.wait(ctx) {
			t.Fatal("a cancelled wait got its turn")
		}
		if !first.wait(t.Context()) {
			t.Fatal("the first run did not get its turn")
		}
		tu.release()
		wctx, done := context.WithTimeout(t.Context(), 5*time.Second)
		defer done()
		if !next.wait(wctx) {
			t.Fatal("the slot went to the cancelled run")
		}
	})
}

func granted(tks []*ticket) int {
	n := 0
	for _, tk := range tks {
		if tk.granted {
			n++
		}
	}
	return n
}
