package cost

import (
	"math"
	"strings"
	"testing"
	"time"
)

func ptr(v float64) *float64 { return &v }

func TestCost(t *testing.T) {
	tests := []struct {
		name  string
		price Price
		tok   Tokens
		want  float64
	}{
		{"plain", Price{Input: 1, Output: 2}, Tokens{Input: 1_000_000, Output: 500_000}, 2},
		{"cached at its own price", Price{Input: 1, CachedInput: ptr(0.1), Output: 2}, Tokens{Input: 1_000_000, CachedInput: 400_000}, 0.6 + 0.04},
		{"cached without its price is input", Price{Input: 1, Output: 2}, Tokens{Input: 1_000_000, CachedInput: 400_000}, 1},
		{"cache writes", Price{Input: 1, CacheWrite: ptr(1.25), Output: 2}, Tokens{Input: 100, CacheWrite: 100}, 125e-6},
		{"reasoning at its own price", Price{Input: 0, Output: 2, Reasoning: ptr(4)}, Tokens{Output: 1_000_000, Reasoning: 250_000}, 1.5 + 1},
		{"reasoning without its price is output", Price{Output: 2}, Tokens{Output: 1_000_000, Reasoning: 250_000}, 2},
		{"contradicting counts clamp", Price{Input: 1, CachedInput: ptr(0), Output: 1, Reasoning: ptr(0)}, Tokens{Input: 10, CachedInput: 50, Output: 10, Reasoning: 50}, 0},
		{"free", Price{}, Tokens{Input: 5, Output: 5}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.price.Cost(tt.tok); math.Abs(got-tt.want) > 1e-12 {
				t.Errorf("Cost = %g, want %g", got, tt.want)
			}
		})
	}
}

// TestDollars: every amount is printed one way: two decimals from a cent
// up, two significant digits below, never a float's raw digits.
func TestDollars(t *testing.T) {
	tests := []struct {
		name string
		in   float64
		want string
	}{
		{"nothing", 0, "$0"},
		{"dollars", 3.412, "$3.41"},
		{"a whole dollar", 1, "$1.00"},
		{"twelve", 12, "$12.00"},
		{"binary noise", 0.9800000000000002, "$0.98"},
		{"cents", 0.016448, "$0.02"},
		{"a cent", 0.01, "$0.01"},
		{"rounds up to a cent", 0.009999, "$0.01"},
		{"under a cent", 0.00421, "$0.0042"},
		{"half a cent", 0.005, "$0.005"},
		{"a fraction of a cent", 0.000042, "$0.000042"},
		{"tiny", 1.234e-9, "$0.0000000012"},
		{"a refund", -0.5, "-$0.50"},
		{"thousands", 1234.5678, "$1234.57"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Dollars(tt.in); got != tt.want {
				t.Errorf("Dollars(%v) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

// TestPriceString: a price is written to the cent, or with every digit
// it has below one.
func TestPriceString(t *testing.T) {
	cached := 0.075
	p := Price{Input: 2.5, CachedInput: &cached, Output: 10}
	if got, want := p.String(), "$2.50 in, $0.075 cached, $10.00 out per 1M tokens"; got != want {
		t.Errorf("price %q, want %q", got, want)
	}
}

func fixed(v float64) func() float64 { return func() float64 { return v } }

func never() bool { return false }

func TestBudget(t *testing.T) {
	t.Run("refuses the run that could pass the limit with none in flight, then every run", func(t *testing.T) {
		b := NewBudget(1, 0.5)
		if _, ok := b.Reserve(fixed(0.6), never); ok {
			t.Fatal("0.5 spent + 0.6 accepted under a limit of 1")
		}
		if _, ok := b.Reserve(fixed(0), never); ok {
			t.Fatal("a refused budget accepted a later run")
		}
		if !b.Reached() || !strings.Contains(b.Reason(), "$1.10") {
			t.Errorf("reason %q", b.Reason())
		}
	})
	t.Run("a next run that reads as the limit is said to pass it", func(t *testing.T) {
		b := NewBudget(0.01, 0)
		if _, ok := b.Reserve(fixed(0.0124), never); ok {
			t.Fatal("0.0124 accepted under a limit of 0.01")
		}
		if want := "cost limit $0.01 reached: $0 spent, and the next run could pass it"; b.Reason() != want {
			t.Errorf("reason %q, want %q", b.Reason(), want)
		}
	})
	t.Run("waits for the runs in flight, then asks the estimate again", func(t *testing.T) {
		b := NewBudget(1, 0)
		est, ok := b.Reserve(fixed(0.6), never)
		if !ok {
			t.Fatal("the first run was refused")
		}
		got := make(chan bool)
		next := 0.6
		go func() {
			_, ok := b.Reserve(func() float64 { return next }, never)
			got <- ok
		}()
		select {
		case <-got:
			t.Fatal("0.6 reserved + 0.6 accepted under a limit of 1")
		case <-time.After(20 * time.Millisecond):
		}
		b.mu.Lock()
		next = 0.3 // the finished run taught the estimate
		b.mu.Unlock()
		b.Settle(est, 0.3)
		if !<-got {
			t.Fatal("0.3 spent + 0.3 refused under a limit of 1")
		}
		if got := b.Spent(); math.Abs(got-0.3) > 1e-12 {
			t.Errorf("Spent = %g, want 0.3", got)
		}
	})
	t.Run("stop ends a wait without reaching the limit", func(t *testing.T) {
		b := NewBudget(1, 0)
		est, _ := b.Reserve(fixed(0.9), never)
		stopped := false
		done := make(chan bool)
		go func() {
			_, ok := b.Reserve(fixed(0.9), func() bool { return stopped })
			done <- ok
		}()
		time.Sleep(10 * time.Millisecond)
		b.mu.Lock()
		stopped = true
		b.mu.Unlock()
		b.Release(est)
		if <-done || b.Reached() {
			t.Error("a stopped wait reserved, or marked the limit reached")
		}
	})
	t.Run("no limit refuses nothing", func(t *testing.T) {
		b := NewBudget(0, 100)
		for range 10 {
			if _, ok := b.Reserve(fixed(1e9), never); !ok {
				t.Fatal("a budget with no limit refused a run")
			}
		}
		if b.Reached() || b.Reason() != "" {
			t.Error("a budget with no limit says it was reached")
		}
	})
}

func TestEstimator(t *testing.T) {
	e := NewEstimator(0.2)
	if got := e.Next("a"); got != 0.2 {
		t.Errorf("before any run: %g, want the prior 0.2", got)
	}
	e.Observe("a", 1)
	e.Observe("a", 3)
	e.Observe("b", 8)
	if got := e.Next("a"); got != 2 {
		t.Errorf("kind a: %g, want its mean 2", got)
	}
	if got := e.Next("c"); got != 8 {
		t.Errorf("unseen kind: %g, want the highest mean of a kind 8", got)
	}
}

func TestConversation(t *testing.T) {
	got := Conversation(400, 40, 3, 10)
	// turn 1: 100 in; turn 2: 100+10+10; turn 3: 120+20.
	want := Tokens{Input: 100 + 120 + 140, Output: 30}
	if got != want {
		t.Errorf("Conversation = %+v, want %+v", got, want)
	}
}
