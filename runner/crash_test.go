package runner

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/killchain/killchain/internal/results"
	"github.com/killchain/killchain/sandbox/local"
)

// Environment of the child process TestKillAndResume starts and kills.
const (
	childOutEnv  = "KILLCHAIN_TEST_CHILD_OUT"
	childRootEnv = "KILLCHAIN_TEST_CHILD_ROOT"
	crashStudy   = "testdata/crash.hcl"
)

// TestKillAndResumeChild is the study process TestKillAndResume kills: it
// runs (or resumes) testdata/crash.hcl into $KILLCHAIN_TEST_CHILD_OUT.
func TestKillAndResumeChild(t *testing.T) {
	out := os.Getenv(childOutEnv)
	if out == "" {
		t.Skip("the child process of TestKillAndResume")
	}
	r, err := New(loadStudy(t, crashStudy), Options{Output: out, Resume: true,
		Backend: &local.Backend{Root: os.Getenv(childRootEnv)}, Models: scriptedOnly})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
}

// TestKillAndResume runs a study in a child process and kills it with
// SIGKILL at random moments (during start-up, and after a random number of
// runs were recorded, plus a random delay), resuming it each time; a last
// resume finishes it in-process. Then each planned run must have exactly one
// line in runs.jsonl, and its events exactly once in events.jsonl: as many
// as the same run has in an uninterrupted study.
func TestKillAndResume(t *testing.T) {
	if os.Getenv(childOutEnv) != "" {
		t.Skip("inside the child")
	}
	seed := time.Now().UnixNano()
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(uint64(seed), 1))

	s := loadStudy(t, crashStudy)
	plan, err := s.Plan()
	if err != nil {
		t.Fatal(err)
	}
	ref := t.TempDir()
	r, err := New(s, Options{Output: ref, Backend: &local.Backend{Root: t.TempDir()}, Models: scriptedOnly})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	want := eventCounts(t, ref)

	out := filepath.Join(t.TempDir(), "study")
	root := t.TempDir()
	kills := killChild(t, rng, killer{child: "TestKillAndResumeChild", out: out, root: root,
		total: len(plan), tries: 8, startup: true, jitter: 3 * time.Millisecond})
	if kills < 2 {
		t.Fatalf("only %d kills landed: the study ran too fast to test", kills)
	}

	r, err = New(s, Options{Output: out, Resume: true, Backend: &local.Backend{Root: root}, Models: scriptedOnly})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	lines := map[string]int{}
	canaries := map[string]string{}
	for _, run := range readAll(t, out) {
		lines[run.RunID]++
		if run.Error != "" {
			t.Errorf("run %s: error %q", run.RunID, run.Error)
		}
		if run.Events == nil || *run.Events != want[run.RunID] {
			t.Errorf("run %s: line counts %v events, want %d", run.RunID, run.Events, want[run.RunID])
		}
		if prev, dup := canaries[run.Canary]; dup && run.Canary != "" {
			t.Errorf("runs %s and %s share canary %s", prev, run.RunID, run.Canary)
		}
		canaries[run.Canary] = run.RunID
	}
	for _, pr := range plan {
		if lines[pr.RunID] != 1 {
			t.Errorf("run %s: %d lines in runs.jsonl, want 1", pr.RunID, lines[pr.RunID])
		}
	}
	if len(lines) != len(plan) {
		t.Errorf("runs.jsonl holds %d run ids, want %d", len(lines), len(plan))
	}
	got := eventCounts(t, out)
	for id, n := range got {
		if n != want[id] {
			t.Errorf("run %s: %d events in events.jsonl, want %d", id, n, want[id])
		}
	}
	for id, n := range want {
		if n > 0 && got[id] == 0 {
			t.Errorf("run %s: no events, want %d", id, n)
		}
	}
}

// eventCounts counts the lines of each run id in a study's events.jsonl.
func eventCounts(t *testing.T, dir string) map[string]int {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, results.EventsFile))
	if err != nil {
		t.Fatal(err)
	}
	counts := map[string]int{}
	for i, line := range bytes.Split(bytes.TrimSuffix(data, []byte{'\n'}), []byte{'\n'}) {
		if len(line) == 0 {
			continue
		}
		var ev struct {
			RunID string `json:"run_id"`
		}
		if err := json.Unmarshal(line, &ev); err != nil || ev.RunID == "" {
			t.Fatalf("events.jsonl:%d: %q: %v", i+1, line, err)
		}
		counts[ev.RunID]++
	}
	return counts
}

// countLines counts the complete lines of a file (0 when it is missing).
func countLines(t *testing.T, p string) int {
	t.Helper()
	data, err := os.ReadFile(p)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	return bytes.Count(data, []byte{'\n'})
}

// waitForLines polls until the file at p holds n complete lines or the
// process exits (its exit is then left on the channel).
func waitForLines(p string, n int, exited chan error) {
	for {
		data, _ := os.ReadFile(p)
		if bytes.Count(data, []byte{'\n'}) >= n {
			return
		}
		select {
		case err := <-exited:
			exited <- err
			return
		case <-time.After(500 * time.Microsecond):
		}
	}
}

// killer is how killChild kills a study process.
type killer struct {
	child     string   // the test that is the study process
	out, root string   // its study folder and its sandboxes' folder
	env       []string // more of its environment
	total     int      // runs.jsonl's lines once the study is done
	tries     int      // processes started at most
	startup   bool     // the first is killed during start-up
	jitter    time.Duration
}

// killChild runs k.child in child processes and kills each with SIGKILL,
// until the study is done or k.tries were started: during start-up (the
// first, with k.startup), else a random number of run lines after the
// last kill and up to k.jitter later. It returns how many kills landed.
func killChild(t *testing.T, rng *rand.Rand, k killer) int {
	t.Helper()
	runs := filepath.Join(k.out, results.RunsFile)
	kills := 0
	for try := 0; try < k.tries; try++ {
		before := countLines(t, runs)
		if before >= k.total {
			break
		}
		cmd := exec.Command(os.Args[0], "-test.run=^"+k.child+"$", "-test.count=1")
		cmd.Env = append(append(os.Environ(), childOutEnv+"="+k.out, childRootEnv+"="+k.root), k.env...)
		var logs bytes.Buffer
		cmd.Stdout, cmd.Stderr = &logs, &logs
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		exited := make(chan error, 1)
		go func() { exited <- cmd.Wait() }()
		var at string
		if try == 0 && k.startup {
			// Kill during start-up: the folder half made, or not at all.
			d := time.Duration(rng.IntN(40)) * time.Millisecond
			at = "after " + d.String()
			time.Sleep(d)
		} else {
			target := before + 1 + rng.IntN(max(1, (k.total-before)/2))
			at = fmt.Sprintf("after run line %d", target)
			waitForLines(runs, target, exited)
			time.Sleep(time.Duration(rng.Int64N(int64(k.jitter/time.Microsecond))) * time.Microsecond)
		}
		select {
		case err := <-exited:
			if err != nil {
				t.Fatalf("child failed: %v\n%s", err, logs.Bytes())
			}
			t.Logf("try %d: the study finished before the kill", try)
			continue
		default:
		}
		if err := cmd.Process.Kill(); err != nil {
			t.Fatal(err)
		}
		<-exited
		kills++
		t.Logf("try %d: killed %s; runs.jsonl then held %d lines", try, at, countLines(t, runs))
	}
	return kills
}
