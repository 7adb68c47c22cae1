package runner

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/killchain/killchain/internal/agent"
	"github.com/killchain/killchain/internal/results"
	"github.com/killchain/killchain/internal/study"
	"github.com/killchain/killchain/sandbox"
	"github.com/killchain/killchain/sandbox/local"
)

func loadStudy(t *testing.T, path string) *study.Study {
	t.Helper()
	s, diags := study.Load(path)
	if diags.HasErrors() {
		t.Fatalf("load %s: %v", path, diags)
	}
	return s
}

func readAll(t *testing.T, dir string) []results.Run {
	t.Helper()
	var runs []results.Run
	if err := results.ReadRuns(filepath.Join(dir, results.RunsFile), func(r results.Run) error {
		runs = append(runs, r)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return runs
}

// failing wraps a model and fails every call while fail() is true.
type failing struct {
	inner agent.Model
	fail  func() bool
}

func (f failing) Generate(ctx context.Context, req agent.Request) (agent.Reply, error) {
	if f.fail() {
		return agent.Reply{}, errors.New("provider said 503 after the last retry")
	}
	return f.inner.Generate(ctx, req)
}

func TestProviderErrorIsRecordedAndResumed(t *testing.T) {
	s := loadStudy(t, "testdata/tiny.hcl")
	s.Attempts = 1 // errors must remain for the resume to retry
	out := t.TempDir()
	var calls atomic.Int64
	flaky := func(m *study.Model) (agent.Model, error) {
		inner, err := scriptedOnly(m)
		return failing{inner: inner, fail: func() bool { return calls.Add(1)%3 == 0 }}, err
	}
	r, err := New(s, Options{Output: out, Backend: &local.Backend{Root: t.TempDir()}, Models: flaky})
	if err != nil {
		t.Fatal(err)
	}
	sum, err := r.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if sum.Errors == 0 {
		t.Fatal("expected some provider errors")
	}
	first := readAll(t, out)
	errored := map[string]bool{}
	for _, run := range first {
		if run.Error != "" {
			errored[run.RunID] = true
			if run.ErrorKind != "provider" {
				t.Errorf("run %s: error kind %q, want provider", run.RunID, run.ErrorKind)
			}
			if results.Is(run.Executed) || run.AttackGoal || run.TaskSuccess {
				t.Errorf("run %s: an errored run carries an outcome", run.RunID)
			}
		}
	}

	t.Run("resume runs exactly the errored runs", func(t *testing.T) {
		r, err := New(s, Options{Output: out, Resume: true, Backend: &local.Backend{Root: t.TempDir()}, Models: scriptedOnly})
		if err != nil {
			t.Fatal(err)
		}
		sum, err := r.Run(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if sum.Ran != len(errored) || sum.Skipped != sum.Planned-len(errored) || sum.Errors != 0 {
			t.Fatalf("resume summary %+v, want %d runs", sum, len(errored))
		}
		// Each run once in runs.jsonl, the finished ones untouched; the
		// errored first tries moved to attempts.jsonl.
		kept := map[string]string{}
		for _, run := range first {
			if run.Error == "" {
				kept[run.RunID] = run.Canary
			}
		}
		all := readAll(t, out)
		if len(all) != sum.Planned {
			t.Errorf("runs.jsonl holds %d lines, want %d", len(all), sum.Planned)
		}
		canaries := map[string]bool{}
		seen := map[string]bool{}
		for _, run := range all {
			if seen[run.RunID] || run.Error != "" {
				t.Errorf("run %s: twice or errored (%q)", run.RunID, run.Error)
			}
			seen[run.RunID] = true
			if c, ok := kept[run.RunID]; ok && c != run.Canary {
				t.Errorf("resume re-ran finished run %s", run.RunID)
			}
			canaries[run.Canary] = true
		}
		moved := map[string]bool{}
		if err := results.ReadAttempts(out, func(run results.Run) error {
			moved[run.RunID] = true
			if run.Canary != "" && canaries[run.Canary] {
				t.Errorf("canary %s used twice", run.Canary)
			}
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(moved, errored) {
			t.Errorf("attempts.jsonl holds %v, want the errored runs %v", moved, errored)
		}
	})
	t.Run("a second resume has nothing to do", func(t *testing.T) {
		r, _ := New(s, Options{Output: out, Resume: true, Backend: &local.Backend{Root: t.TempDir()}, Models: scriptedOnly})
		sum, err := r.Run(context.Background())
		if err != nil || sum.Ran != 0 {
			t.Fatalf("sum %+v err %v", sum, err)
		}
	})
	t.Run("a changed plan is refused", func(t *testing.T) {
		src := strings.Replace(string(s.Source), "repeats    = 2", "repeats    = 3", 1)
		s2, diags := study.Parse("tiny.hcl", []byte(src))
		if diags.HasErrors() {
			t.Fatal(diags)
		}
		r, _ := New(s2, Options{Output: out, Resume: true, Backend: &local.Backend{Root: t.TempDir()}, Models: scriptedOnly})
		if _, err := r.Run(context.Background()); err == nil || !strings.Contains(err.Error(), "changed the plan") {
			t.Fatalf("err = %v, want a refusal", err)
		}
	})
	t.Run("an existing folder is not overwritten without --resume", func(t *testing.T) {
		r, _ := New(s, Options{Output: out, Backend: &local.Backend{Root: t.TempDir()}, Models: scriptedOnly})
		if _, err := r.Run(context.Background()); err == nil {
			t.Fatal("expected a refusal")
		}
	})
}

// brokenBackend opens sandboxes that die on the n-th tool call.
type brokenBackend struct{ local.Backend }

func (b *brokenBackend) Open(ctx context.Context, env sandbox.Env) (sandbox.Sandbox, error) {
	sb, err := b.Backend.Open(ctx, env)
	return dyingSandbox{sb}, err
}

type dyingSandbox struct{ sandbox.Sandbox }

func (d dyingSandbox) Call(ctx context.Context, agent, tool string, args json.RawMessage) (sandbox.Result, error) {
	return sandbox.Result{}, errors.New("container exited: OOMKilled")
}

func TestSandboxErrorIsNotAnOutcome(t *testing.T) {
	s := loadStudy(t, "testdata/tiny.hcl")
	s.RetryBackoff = 0
	out := t.TempDir()
	r, _ := New(s, Options{Output: out, Backend: &brokenBackend{local.Backend{Root: t.TempDir()}}, Models: scriptedOnly})
	sum, err := r.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if sum.Errors != sum.Planned {
		t.Fatalf("errors %d of %d", sum.Errors, sum.Planned)
	}
	for _, run := range readAll(t, out) {
		if run.ErrorKind != "sandbox" || !strings.Contains(run.Error, "OOMKilled") {
			t.Errorf("run %s: error %q kind %q", run.RunID, run.Error, run.ErrorKind)
		}
		if results.Is(run.Executed) || run.Stage != "none" || run.AttackGoal {
			t.Errorf("run %s: errored run has an outcome", run.RunID)
		}
	}
}

// blocking makes every run after the first few wait for cancellation.
type blocking struct {
	inner   agent.Model
	mu      *sync.Mutex
	started map[string]bool
	limit   int
	cancel  context.CancelFunc
}

func (b blocking) Generate(ctx context.Context, req agent.Request) (agent.Reply, error) {
	key := req.Messages[0].Content + req.System
	b.mu.Lock()
	if len(req.Messages) == 1 {
		b.started[key+string(rune(len(b.started)))] = true
	}
	n := len(b.started)
	b.mu.Unlock()
	if n > b.limit {
		b.cancel()
		<-ctx.Done()
		return agent.Reply{}, ctx.Err()
	}
	return b.inner.Generate(ctx, req)
}

func TestCancelKeepsFinishedRuns(t *testing.T) {
	s := loadStudy(t, "testdata/tiny.hcl")
	out := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var mu sync.Mutex
	started := map[string]bool{}
	factory := func(m *study.Model) (agent.Model, error) {
		inner, err := scriptedOnly(m)
		return blocking{inner: inner, mu: &mu, started: started, limit: 3, cancel: cancel}, err
	}
	r, _ := New(s, Options{Output: out, Backend: &local.Backend{Root: t.TempDir()}, Models: factory})
	sum, err := r.Run(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !sum.Canceled || sum.Ran >= sum.Planned {
		t.Fatalf("summary %+v: want an interrupted study", sum)
	}
	runs := readAll(t, out)
	for _, run := range runs {
		if run.Error != "" {
			t.Errorf("interrupted run %s was recorded as %q", run.RunID, run.Error)
		}
	}
	r2, _ := New(s, Options{Output: out, Resume: true, Backend: &local.Backend{Root: t.TempDir()}, Models: scriptedOnly})
	sum2, err := r2.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if sum2.Skipped != len(runs) || sum2.Skipped+sum2.Ran != sum2.Planned {
		t.Fatalf("resume %+v after %d finished", sum2, len(runs))
	}
	if _, err := os.Stat(filepath.Join(out, results.ManifestFile)); err != nil {
		t.Fatal(err)
	}
}
