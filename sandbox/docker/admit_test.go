package docker

import (
	"context"
	"testing"
	"time"

	"github.com/killchain/killchain/sandbox/admit"
	"github.com/killchain/killchain/sandbox/warm"
)

// TestHeavyCallDeadlineStartsAtAdmission holds the only heavy slot for
// longer than the call deadline: a parse_pdf call queued behind it must
// still succeed once admitted, and a light call must not queue at all.
func TestHeavyCallDeadlineStartsAtAdmission(t *testing.T) {
	lim := admit.New(1, nil)
	b := newBackend(t, Options{Options: warm.Options{CallTimeout: 2 * time.Second, Limiter: lim}})
	s := openProbe(t, b, uniqueStudy(t), "queued")
	ctx := context.Background()
	hold := 3 * time.Second
	held := make(chan struct{})
	go lim.Run(ctx, admit.Call{What: "hog", Heavy: true}, func(context.Context) error {
		close(held)
		time.Sleep(hold)
		return nil
	})
	<-held

	start := time.Now()
	if _, err := s.Call(ctx, "a", "list_memory", nil); err != nil {
		t.Fatalf("light call: %v", err)
	}
	if d := time.Since(start); d > time.Second {
		t.Errorf("a light call waited %s behind the heavy slot", d)
	}
	res, err := s.Call(ctx, "a", "parse_pdf", []byte(`{"path":"docs/missing.pdf"}`))
	if err != nil {
		t.Fatalf("heavy call queued past its deadline failed: %v", err)
	}
	if d := time.Since(start); d < hold-500*time.Millisecond {
		t.Errorf("the heavy call did not queue (returned after %s)", d)
	}
	if res.Error == "" {
		t.Errorf("parse_pdf of a missing file = %+v, want a tool error", res)
	}
}
