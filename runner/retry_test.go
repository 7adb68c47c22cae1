package runner

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/killchain/killchain/internal/agent"
	"github.com/killchain/killchain/internal/canary"
	"github.com/killchain/killchain/internal/results"
	"github.com/killchain/killchain/internal/study"
	"github.com/killchain/killchain/sandbox"
	"github.com/killchain/killchain/sandbox/local"
)

func TestBackoff(t *testing.T) {
	tests := []struct {
		name   string
		base   time.Duration
		n      int
		jitter float64
		lo, hi time.Duration
	}{
		{"no base, no wait", 0, 3, 1, 0, 0},
		{"first retry, least jitter", time.Second, 1, 0, 500 * time.Millisecond, 500 * time.Millisecond},
		{"first retry, most jitter", time.Second, 1, 1, time.Second, time.Second},
		{"third retry doubles twice", time.Second, 3, 0.5, 2 * time.Second, 4 * time.Second},
		{"capped", 10 * time.Second, 30, 1, maxBackoff, maxBackoff},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := backoff(tt.base, tt.n, func() float64 { return tt.jitter })
			if got < tt.lo || got > tt.hi {
				t.Errorf("backoff(%s, %d) = %s, want within [%s, %s]", tt.base, tt.n, got, tt.lo, tt.hi)
			}
		})
	}
}

// flakyBackend fails the first fails tries of every run: their sandboxes die
// when the final state is read, after the agents ran and the tracker saw
// everything, so a failed try has events and a transcript to discard.
type flakyBackend struct {
	local.Backend
	fails int
	mu    sync.Mutex
	opens map[string]int
}

func (b *flakyBackend) Open(ctx context.Context, env sandbox.Env) (sandbox.Sandbox, error) {
	b.mu.Lock()
	b.opens[env.Run]++
	n := b.opens[env.Run]
	b.mu.Unlock()
	sb, err := b.Backend.Open(ctx, env)
	if err != nil || n > b.fails {
		return sb, err
	}
	return &stateDies{Sandbox: sb}, nil
}

// stateDies answers the pristine state read and fails the final one.
type stateDies struct {
	sandbox.Sandbox
	reads int
}

func (s *stateDies) State(ctx context.Context) (sandbox.State, error) {
	if s.reads++; s.reads > 1 {
		return sandbox.State{}, errors.New("container exited with code 137")
	}
	return s.Sandbox.State(ctx)
}

// retryStudy is tiny.hcl with the given attempts and no backoff to wait.
func retryStudy(t *testing.T, attempts int) *study.Study {
	s := loadStudy(t, "testdata/tiny.hcl")
	s.Attempts, s.RetryBackoff = attempts, time.Millisecond
	return s
}

func TestSandboxErrorIsRetried(t *testing.T) {
	s := retryStudy(t, 2)
	out := t.TempDir()
	be := &flakyBackend{Backend: local.Backend{Root: t.TempDir()}, fails: 1, opens: map[string]int{}}
	var progress bytes.Buffer
	r, err := New(s, Options{Output: out, Backend: be, Models: scriptedOnly, Progress: &progress})
	if err != nil {
		t.Fatal(err)
	}
	sum, err := r.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if sum.Errors != 0 || sum.Retried != sum.Planned {
		t.Fatalf("summary %+v: want every run retried once and none errored", sum)
	}
	if line := strings.TrimSpace(progress.String()); !strings.Contains(line, "retried "+strconv.Itoa(sum.Planned)) {
		t.Errorf("progress %q does not count the retries", line)
	}
	events, err := os.ReadFile(filepath.Join(out, results.EventsFile))
	if err != nil {
		t.Fatal(err)
	}
	perRun := map[string]int{}
	for line := range bytes.Lines(events) {
		var ev struct {
			RunID string `json:"run_id"`
		}
		if err := json.Unmarshal(line, &ev); err != nil {
			t.Fatal(err)
		}
		perRun[ev.RunID]++
	}
	attacked := 0
	for _, run := range readAll(t, out) {
		t.Run(run.RunID, func(t *testing.T) {
			if run.Error != "" || run.Attempts != 2 || len(run.AttemptErrors) != 1 {
				t.Fatalf("error %q, attempts %d, attempt errors %+v: want success on the second try", run.Error, run.Attempts, run.AttemptErrors)
			}
			ae := run.AttemptErrors[0]
			if ae.Kind != "sandbox" || !strings.Contains(ae.Error, "code 137") || ae.Started == "" {
				t.Errorf("attempt error %+v", ae)
			}
			if run.Attacked != (ae.Canary != "") {
				t.Errorf("attacked %v, first try's canary %q", run.Attacked, ae.Canary)
			}
			if run.Events == nil || perRun[run.RunID] != *run.Events {
				t.Errorf("events.jsonl holds %d events of the run, its line says %v", perRun[run.RunID], run.Events)
			}
			tr, err := os.ReadFile(filepath.Join(out, results.TranscriptsDir, run.RunID+".json"))
			if err != nil {
				t.Fatal(err)
			}
			var transcript results.Transcript
			if err := json.Unmarshal(tr, &transcript); err != nil {
				t.Fatal(err)
			}
			if transcript.Canary != run.Canary || transcript.Error != "" {
				t.Errorf("transcript canary %q error %q, want the recorded try's", transcript.Canary, transcript.Error)
			}
			if !run.Attacked {
				return
			}
			attacked++
			if !canary.Valid(ae.Canary) || ae.Canary == run.Canary {
				t.Errorf("retry canary %q after %q: want a fresh one", run.Canary, ae.Canary)
			}
			if bytes.Contains(events, []byte(ae.Canary)) || bytes.Contains(tr, []byte(ae.Canary)) {
				t.Errorf("the failed try's canary %s is left in events.jsonl or the transcript", ae.Canary)
			}
			if run.Stage == "none" {
				t.Errorf("stage none: the retried compliant run should carry an outcome")
			}
		})
	}
	if attacked == 0 {
		t.Fatal("the study has no attacked run")
	}
}

func TestRetriesGiveUp(t *testing.T) {
	s := retryStudy(t, 3)
	out := t.TempDir()
	r, _ := New(s, Options{Output: out, Backend: &brokenBackend{local.Backend{Root: t.TempDir()}}, Models: scriptedOnly})
	sum, err := r.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if sum.Errors != sum.Planned || sum.Retried != 2*sum.Planned {
		t.Fatalf("summary %+v: want every run errored after 3 tries", sum)
	}
	for _, run := range readAll(t, out) {
		if run.ErrorKind != "sandbox" || run.Attempts != 3 || len(run.AttemptErrors) != 2 {
			t.Errorf("run %s: kind %q attempts %d attempt errors %d", run.RunID, run.ErrorKind, run.Attempts, len(run.AttemptErrors))
			continue
		}
		if run.Stage != "none" || run.AttackGoal || run.TaskSuccess {
			t.Errorf("run %s: errored run carries an outcome", run.RunID)
		}
		seen := map[string]bool{run.Canary: true}
		for _, ae := range run.AttemptErrors {
			if ae.Kind != "sandbox" || !strings.Contains(ae.Error, "OOMKilled") {
				t.Errorf("run %s: attempt error %+v", run.RunID, ae)
			}
			if run.Attacked && seen[ae.Canary] {
				t.Errorf("run %s: canary %s used by two tries", run.RunID, ae.Canary)
			}
			seen[ae.Canary] = true
		}
	}
}

// truncating cuts every reply at the token limit.
type truncating struct{ calls *int64 }

func (m truncating) Generate(context.Context, agent.Request) (agent.Reply, error) {
	*m.calls++
	return agent.Reply{Narration: "I will", Stop: agent.StopLength}, nil
}

func TestModelBehaviourIsNotRetried(t *testing.T) {
	s := retryStudy(t, 3)
	s.Concurrency = 1 // the fake counts calls without a lock
	out := t.TempDir()
	var calls int64
	r, _ := New(s, Options{Output: out, Backend: &local.Backend{Root: t.TempDir()},
		Models: func(*study.Model) (agent.Model, error) { return truncating{&calls}, nil }})
	sum, err := r.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if sum.Errors != sum.Planned || sum.Retried != 0 || calls != int64(sum.Planned) {
		t.Fatalf("summary %+v after %d model calls: want each run tried once", sum, calls)
	}
	for _, run := range readAll(t, out) {
		if run.ErrorKind != "truncated" || run.Attempts != 1 || len(run.AttemptErrors) != 0 {
			t.Errorf("run %s: kind %q attempts %d attempt errors %v", run.RunID, run.ErrorKind, run.Attempts, run.AttemptErrors)
		}
	}
}

func TestResumeReservesRetriedCanaries(t *testing.T) {
	dir := t.TempDir()
	line, _ := json.Marshal(results.Run{RunID: "r1", Canary: "SECRET-00000002", Attempts: 2,
		AttemptErrors: []results.AttemptError{{Kind: "provider", Error: "503", Canary: "SECRET-00000001"}}})
	if err := os.WriteFile(filepath.Join(dir, results.RunsFile), append(line, '\n'), 0o644); err != nil {
		t.Fatal(err)
	}
	done, used, err := finished(dir)
	if err != nil {
		t.Fatal(err)
	}
	if kind, ok := done["r1"]; !ok || kind != "" || strings.Join(used, ",") != "SECRET-00000002,SECRET-00000001" {
		t.Errorf("done %v used %v: want r1 done and both tries' canaries reserved", done, used)
	}
}
