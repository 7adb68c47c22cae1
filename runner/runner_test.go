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
	"github.com/killchain/killchain/internal/errkind"
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

// TestSubsetResumeKeepsErroredRuns resumes a study whose every run errored
// with a subset: only the subset's runs run again, and the errored runs
// outside it stay in runs.jsonl, counted by every reader, until a resume
// that selects them (issue 19: compaction used to move them aside unrun).
func TestSubsetResumeKeepsErroredRuns(t *testing.T) {
	s := loadStudy(t, "testdata/tiny.hcl")
	s.Attempts = 1
	out := t.TempDir()
	down := func(m *study.Model) (agent.Model, error) {
		inner, err := scriptedOnly(m)
		return failing{inner: inner, fail: func() bool { return true }}, err
	}
	r, _ := New(s, Options{Output: out, Backend: &local.Backend{Root: t.TempDir()}, Models: down})
	sum, err := r.Run(context.Background())
	if err != nil || sum.Errors != sum.Planned {
		t.Fatalf("summary %+v, err %v: want every run errored", sum, err)
	}
	sel := &study.Selection{Tasks: []string{"memory_poison"}}
	r, _ = New(s, Options{Output: out, Resume: true, Selection: sel, Backend: &local.Backend{Root: t.TempDir()}, Models: scriptedOnly})
	sum, err = r.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if sum.Ran != sum.Selected || sum.Errors != 0 {
		t.Fatalf("subset resume %+v: want the %d selected runs run again", sum, sum.Selected)
	}
	errored, finishedRuns := 0, 0
	if _, err := results.ReadLatestRuns(filepath.Join(out, results.RunsFile), func(run results.Run) error {
		switch {
		case run.Task == "propagation" && run.Error != "":
			errored++
		case run.Task == "memory_poison" && run.Error == "":
			finishedRuns++
		default:
			t.Errorf("run %s (%s): error %q", run.RunID, run.Task, run.Error)
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if errored != sum.Planned-sum.Selected || finishedRuns != sum.Selected {
		t.Errorf("after the subset resume: %d errored propagation runs, %d finished memory_poison runs", errored, finishedRuns)
	}
	r, _ = New(s, Options{Output: out, Resume: true, Backend: &local.Backend{Root: t.TempDir()}, Models: scriptedOnly})
	if sum, err = r.Run(context.Background()); err != nil || sum.Ran != errored || sum.Errors != 0 {
		t.Fatalf("full resume %+v, err %v: want the %d errored runs run", sum, err, errored)
	}
	if n := len(readAll(t, out)); n != sum.Planned {
		t.Errorf("runs.jsonl holds %d lines, want one per run (%d)", n, sum.Planned)
	}
}

// TestResumeLeavesTruncatedRuns: a resume does not resample the model until
// it stops truncating; it says how many runs it left, and runs them again
// only when asked.
func TestResumeLeavesTruncatedRuns(t *testing.T) {
	s := loadStudy(t, "testdata/tiny.hcl")
	s.Concurrency = 1
	out := t.TempDir()
	var calls int64
	r, _ := New(s, Options{Output: out, Backend: &local.Backend{Root: t.TempDir()},
		Models: func(*study.Model) (agent.Model, error) { return truncating{&calls}, nil }})
	if sum, err := r.Run(context.Background()); err != nil || sum.Errors != sum.Planned {
		t.Fatalf("summary %+v, err %v", sum, err)
	}
	r, _ = New(s, Options{Output: out, Resume: true, Backend: &local.Backend{Root: t.TempDir()}, Models: scriptedOnly})
	sum, err := r.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if sum.Ran != 0 || sum.Left[errkind.Truncated] != sum.Planned {
		t.Fatalf("resume %+v: want every truncated run left as it is", sum)
	}
	r, _ = New(s, Options{Output: out, Resume: true, Rerun: []errkind.Kind{errkind.Truncated},
		Backend: &local.Backend{Root: t.TempDir()}, Models: scriptedOnly})
	if sum, err = r.Run(context.Background()); err != nil || sum.Ran != sum.Planned || sum.Errors != 0 || len(sum.Left) != 0 {
		t.Fatalf("resume with Rerun %+v, err %v: want every run run again", sum, err)
	}
}
