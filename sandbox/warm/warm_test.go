package warm

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// items counts what a pool made and destroyed; an item is its serial.
type items struct {
	mu        sync.Mutex
	made      int
	destroyed map[int]bool
	inflight  atomic.Int32
	peak      atomic.Int32
	delay     time.Duration
	fail      error
}

func (it *items) create(ctx context.Context) (int, error) {
	n := it.inflight.Add(1)
	defer it.inflight.Add(-1)
	for {
		p := it.peak.Load()
		if n <= p || it.peak.CompareAndSwap(p, n) {
			break
		}
	}
	select {
	case <-time.After(it.delay):
	case <-ctx.Done():
		return 0, ctx.Err()
	}
	it.mu.Lock()
	defer it.mu.Unlock()
	if it.fail != nil {
		return 0, it.fail
	}
	it.made++
	return it.made, nil
}

func (it *items) destroy(_ context.Context, n int) error {
	it.mu.Lock()
	defer it.mu.Unlock()
	if it.destroyed == nil {
		it.destroyed = map[int]bool{}
	}
	if it.destroyed[n] {
		return errors.New("destroyed twice")
	}
	it.destroyed[n] = true
	return nil
}

func TestTakeHandsEachItemOutOnce(t *testing.T) {
	for _, tc := range []struct {
		name           string
		size, takers   int
		takesPerTaker  int
		delay          time.Duration
		wantPeakAtMost int32
	}{
		{"one at a time", 2, 1, 10, time.Millisecond, 2 + 1},
		{"more takers than the pool", 2, 8, 5, 2 * time.Millisecond, 2 + 8},
		{"no pool", 0, 4, 5, time.Millisecond, 0 + 4},
	} {
		t.Run(tc.name, func(t *testing.T) {
			it := &items{delay: tc.delay}
			p := New(tc.size, it.destroy, nil)
			ctx := context.Background()
			var mu sync.Mutex
			got := map[int]int{}
			var wg sync.WaitGroup
			for range tc.takers {
				wg.Go(func() {
					for range tc.takesPerTaker {
						n, err := p.Take(ctx, "k", it.create)
						if err != nil {
							t.Error(err)
							return
						}
						mu.Lock()
						got[n]++
						mu.Unlock()
					}
				})
			}
			wg.Wait()
			for n, c := range got {
				if c != 1 {
					t.Errorf("item %d handed out %d times", n, c)
				}
			}
			if len(got) != tc.takers*tc.takesPerTaker {
				t.Errorf("handed out %d items, want %d", len(got), tc.takers*tc.takesPerTaker)
			}
			if err := p.Settle(ctx); err != nil {
				t.Fatal(err)
			}
			if r := p.Ready(); r != tc.size {
				t.Errorf("ready after settle = %d, want %d", r, tc.size)
			}
			if peak := it.peak.Load(); peak > tc.wantPeakAtMost {
				t.Errorf("peak creations in flight = %d, want at most %d", peak, tc.wantPeakAtMost)
			}
			if err := p.Close(ctx); err != nil {
				t.Fatal(err)
			}
			// Exactly the items nobody took are destroyed.
			it.mu.Lock()
			defer it.mu.Unlock()
			for n := range it.destroyed {
				if got[n] > 0 {
					t.Errorf("item %d was handed out and destroyed by the pool", n)
				}
			}
			if len(it.destroyed)+len(got) != it.made {
				t.Errorf("made %d, handed out %d, destroyed %d: some leaked", it.made, len(got), len(it.destroyed))
			}
		})
	}
}

func TestTakeCancelled(t *testing.T) {
	it := &items{delay: 200 * time.Millisecond}
	p := New(1, it.destroy, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	if _, err := p.Take(ctx, "k", it.create); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Take = %v, want the deadline", err)
	}
	// The creation the run gave up on still finishes, on the pool's
	// context, and its item stays ready for the next run.
	if err := p.Settle(context.Background()); err != nil {
		t.Fatal(err)
	}
	if r := p.Ready(); r < 1 {
		t.Errorf("ready = %d after a cancelled take", r)
	}
	if err := p.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	if len(it.destroyed) != it.made {
		t.Errorf("made %d, destroyed %d", it.made, len(it.destroyed))
	}
}

func TestCloseCancelsCreationsAndFailsWaiters(t *testing.T) {
	it := &items{delay: time.Hour}
	p := New(3, it.destroy, nil)
	errc := make(chan error, 1)
	go func() {
		_, err := p.Take(context.Background(), "k", it.create)
		errc <- err
	}()
	for it.inflight.Load() < 4 {
		time.Sleep(time.Millisecond)
	}
	done := make(chan error, 1)
	go func() { done <- p.Close(context.Background()) }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Close did not cancel the creations")
	}
	if err := <-errc; err == nil {
		t.Error("a run waiting when the pool closed got an item")
	}
	if n := it.inflight.Load(); n != 0 {
		t.Errorf("%d creations still running after Close", n)
	}
	if _, err := p.Take(context.Background(), "k", it.create); !errors.Is(err, ErrClosed) {
		t.Errorf("Take after Close = %v", err)
	}
}

func TestFailedCreation(t *testing.T) {
	boom := errors.New("no image")
	it := &items{delay: time.Millisecond, fail: boom}
	p := New(2, it.destroy, nil)
	if _, err := p.Take(context.Background(), "k", it.create); !errors.Is(err, boom) {
		t.Fatalf("Take = %v, want the creation's error", err)
	}
	if err := p.Settle(context.Background()); err != nil {
		t.Fatal(err)
	}
	// Failed creations are not tried again until a run asks.
	time.Sleep(20 * time.Millisecond)
	if n := it.inflight.Load(); n != 0 {
		t.Errorf("%d creations running after failures with nobody waiting", n)
	}
	it.mu.Lock()
	it.fail = nil
	it.mu.Unlock()
	if _, err := p.Take(context.Background(), "k", it.create); err != nil {
		t.Fatalf("Take after the backend recovered = %v", err)
	}
	p.Close(context.Background())
}

func TestLimitOverKeys(t *testing.T) {
	it := &items{delay: time.Millisecond}
	p := New(2, it.destroy, nil).Limit(3)
	ctx := context.Background()
	for i, key := range []string{"a", "b", "c", "a", "c"} {
		if _, err := p.Take(ctx, key, it.create); err != nil {
			t.Fatal(err)
		}
		if err := p.Settle(ctx); err != nil {
			t.Fatal(err)
		}
		p.mu.Lock()
		spare, last := p.spare(), len(p.keys[key].ready)
		p.mu.Unlock()
		if spare > 3 {
			t.Errorf("take %d (%s): %d spare items over the limit of 3", i, key, spare)
		}
		if last == 0 {
			t.Errorf("take %d (%s): the key just taken has nothing ready", i, key)
		}
	}
	if err := p.Close(ctx); err != nil {
		t.Fatal(err)
	}
	it.mu.Lock()
	defer it.mu.Unlock()
	if len(it.destroyed)+5 != it.made {
		t.Errorf("made %d, handed out 5, destroyed %d: some leaked", it.made, len(it.destroyed))
	}
}

// TestNilPool: a backend without a pool holds a nil one, which waits for
// nothing, holds nothing and closes at once.
func TestNilPool(t *testing.T) {
	var p *Pool[int]
	if err := p.Settle(t.Context()); err != nil {
		t.Errorf("Settle = %v", err)
	}
	if n := p.Ready(); n != 0 {
		t.Errorf("Ready = %d", n)
	}
	if err := p.Close(t.Context()); err != nil {
		t.Errorf("Close = %v", err)
	}
}
