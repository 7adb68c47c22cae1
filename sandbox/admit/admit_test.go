package admit

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// slowCall is a fake sandbox call: it holds its slot for d, or fails with the
// cause of its context when that ends first, as the docker backend does.
func slowCall(d time.Duration, running, peak *atomic.Int64) func(ctx context.Context) error {
	return func(ctx context.Context) error {
		n := running.Add(1)
		defer running.Add(-1)
		for {
			p := peak.Load()
			if n <= p || peak.CompareAndSwap(p, n) {
				break
			}
		}
		select {
		case <-time.After(d):
			return nil
		case <-ctx.Done():
			return context.Cause(ctx)
		}
	}
}

func TestRun(t *testing.T) {
	t.Run("at most N heavy calls run at once", func(t *testing.T) {
		for _, slots := range []int{1, 2, 3} {
			l := New(slots, nil)
			var running, peak atomic.Int64
			var wg sync.WaitGroup
			errs := make(chan error, 12)
			for range 12 {
				wg.Go(func() {
					errs <- l.Run(context.Background(), Call{What: "heavy", Heavy: true, Timeout: time.Second}, slowCall(10*time.Millisecond, &running, &peak))
				})
			}
			wg.Wait()
			close(errs)
			for err := range errs {
				if err != nil {
					t.Errorf("slots %d: %v", slots, err)
				}
			}
			if got := peak.Load(); got != int64(slots) {
				t.Errorf("slots %d: %d heavy calls ran at once", slots, got)
			}
			if l.Running() != 0 || l.Queued() != 0 {
				t.Errorf("slots %d: running %d queued %d after all returned", slots, l.Running(), l.Queued())
			}
		}
	})
	t.Run("light calls do not queue", func(t *testing.T) {
		l := New(1, nil)
		hold := make(chan struct{})
		go l.Run(context.Background(), Call{What: "hog", Heavy: true}, func(context.Context) error { <-hold; return nil })
		defer close(hold)
		waitFor(t, func() bool { return l.Running() == 1 })
		var running, peak atomic.Int64
		start := time.Now()
		if err := l.Run(context.Background(), Call{What: "light", Timeout: time.Second}, slowCall(time.Millisecond, &running, &peak)); err != nil {
			t.Fatal(err)
		}
		if el := time.Since(start); el > 500*time.Millisecond {
			t.Errorf("a light call waited %s behind a heavy one", el)
		}
	})
	t.Run("the deadline counts running time, not queue time", func(t *testing.T) {
		l := New(1, nil)
		hold := make(chan struct{})
		go l.Run(context.Background(), Call{What: "hog", Heavy: true}, func(context.Context) error { <-hold; return nil })
		waitFor(t, func() bool { return l.Running() == 1 })
		time.AfterFunc(300*time.Millisecond, func() { close(hold) })
		var running, peak atomic.Int64
		start := time.Now()
		// Queued about 300 ms behind the hog, three times its deadline;
		// its own run of 20 ms is well inside it.
		err := l.Run(context.Background(), Call{What: "short", Heavy: true, Timeout: 100 * time.Millisecond}, slowCall(20*time.Millisecond, &running, &peak))
		if err != nil {
			t.Fatalf("a short call failed after queueing %s: %v", time.Since(start), err)
		}
		if el := time.Since(start); el < 250*time.Millisecond {
			t.Errorf("the call did not queue (returned after %s)", el)
		}
	})
	t.Run("a call running past its deadline fails with ErrDeadline", func(t *testing.T) {
		l := New(1, nil)
		var running, peak atomic.Int64
		err := l.Run(context.Background(), Call{What: "slow", Heavy: true, Timeout: 20 * time.Millisecond}, slowCall(time.Second, &running, &peak))
		if !errors.Is(err, ErrDeadline) {
			t.Fatalf("err = %v, want ErrDeadline", err)
		}
	})
	t.Run("cancellation while queued returns promptly", func(t *testing.T) {
		l := New(1, nil)
		hold := make(chan struct{})
		defer close(hold)
		go l.Run(context.Background(), Call{What: "hog", Heavy: true}, func(context.Context) error { <-hold; return nil })
		waitFor(t, func() bool { return l.Running() == 1 })
		ctx, cancel := context.WithCancel(context.Background())
		ran := false
		done := make(chan error, 1)
		go func() {
			done <- l.Run(ctx, Call{What: "queued", Heavy: true, Timeout: time.Minute}, func(context.Context) error { ran = true; return nil })
		}()
		waitFor(t, func() bool { return l.Queued() == 1 })
		cancel()
		select {
		case err := <-done:
			if !errors.Is(err, context.Canceled) {
				t.Errorf("err = %v, want context.Canceled", err)
			}
			if ran {
				t.Error("the cancelled call ran")
			}
		case <-time.After(time.Second):
			t.Fatal("a cancelled queued call did not return within 1s")
		}
		if l.Queued() != 0 {
			t.Errorf("queued %d after the cancelled call returned", l.Queued())
		}
	})
	t.Run("zero slots means one per CPU", func(t *testing.T) {
		if l := New(0, nil); l.Slots() < 1 {
			t.Errorf("slots %d", l.Slots())
		}
	})
}

// waitFor polls cond for up to 2 s.
func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	for end := time.Now().Add(2 * time.Second); time.Now().Before(end); time.Sleep(time.Millisecond) {
		if cond() {
			return
		}
	}
	t.Fatal("condition not reached within 2s")
}
