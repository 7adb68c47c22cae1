package runner

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"

	"github.com/killchain/killchain/internal/agent"
	"github.com/killchain/killchain/internal/errkind"
	"github.com/killchain/killchain/internal/study"
	"github.com/killchain/killchain/sandbox/local"
)

// countingRefuser refuses every call with a 401 and counts the calls.
type countingRefuser struct{ calls *atomic.Int64 }

func (m countingRefuser) Generate(context.Context, agent.Request) (agent.Reply, error) {
	m.calls.Add(1)
	return agent.Reply{}, refusedKey{}
}

// TestFatalKeepsTheSlot: a run whose key is refused keeps its slot until
// the study stops, though runs free theirs before they are written: at
// concurrency 1 the study makes one call and records one run, not a second
// run behind the first with the same key.
func TestFatalKeepsTheSlot(t *testing.T) {
	const src = `study "fatal" {
  seed        = 3
  concurrency = 1
}
model "m" {
  provider = "scripted"
  policy   = "compliant"
}
grid "g" {
  tasks      = ["memory_poison"]
  models     = ["m"]
  conditions = ["hack"]
  repeats    = 6
}
`
	path := filepath.Join(t.TempDir(), "study.hcl")
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	var calls atomic.Int64
	out := filepath.Join(t.TempDir(), "out")
	runFatal(t, loadStudy(t, path), out, func(*study.Model) (agent.Model, error) { return countingRefuser{&calls}, nil })
	runs := readAll(t, out)
	if len(runs) != 1 || runs[0].ErrorKind != errkind.Provider || calls.Load() != 1 {
		t.Errorf("%d runs recorded, %d calls made; want 1 provider error after 1 call", len(runs), calls.Load())
	}
}

// runFatal runs s into out on a local backend with models and fails the
// test unless the study stops with a FatalError.
func runFatal(t *testing.T, s *study.Study, out string, models ModelFactory) {
	t.Helper()
	r, err := New(s, Options{Output: out, Backend: &local.Backend{Root: t.TempDir()}, Models: models})
	if err != nil {
		t.Fatal(err)
	}
	_, err = r.Run(context.Background())
	var fe *FatalError
	if !errors.As(err, &fe) {
		t.Fatalf("Run = %v, want a FatalError", err)
	}
}
