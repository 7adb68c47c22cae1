// Package studytest runs small reference-agent studies for the probes
// tests: scripted agents on the local sandbox, offline, in a second.
package studytest

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/killchain/killchain/internal/agent"
	"github.com/killchain/killchain/internal/models/scripted"
	"github.com/killchain/killchain/internal/study"
	"github.com/killchain/killchain/internal/testenv"
	"github.com/killchain/killchain/runner"
	"github.com/killchain/killchain/sandbox/local"
)

// Text is a study of three text tasks (two single-agent, one relay) with
// reference agents, clean and attacked: every task has both labels of both
// targets. Its two %d are the repeats of the single and relay grids.
const Text = `
study "probes_text" {
  seed        = 7
  concurrency = 4
  sandbox     = "local"
  max_turns   = 10
}
model "compliant" {
  provider = "scripted"
  policy   = "compliant"
}
model "resistant" {
  provider = "scripted"
  policy   = "resistant"
}
grid "single" {
  batch      = "probes_single"
  tasks      = ["memory_poison", "tool_poison"]
  models     = ["compliant", "resistant"]
  conditions = ["plain", "hack"]
  defenses   = ["none"]
  repeats    = %d
}
grid "relay" {
  batch      = "probes_relay"
  tasks      = ["propagation"]
  models     = ["compliant", "resistant"]
  conditions = ["plain", "hack"]
  defenses   = ["none"]
  repeats    = %d
}
`

// Other is a second small study (another seed, one task, both
// conditions) for applying probes trained on Text.
const Other = `
study "probes_other" {
  seed        = 99
  concurrency = 2
  sandbox     = "local"
  max_turns   = 10
}
model "compliant" {
  provider = "scripted"
  policy   = "compliant"
}
grid "one" {
  batch      = "other"
  tasks      = ["tool_poison"]
  models     = ["compliant"]
  conditions = ["plain", "hack"]
  defenses   = ["none"]
  repeats    = 1
}
`

// Defenses is a study of every text task under every defense and
// condition with the agents that reach each kind of tool message: results,
// refusals, blocks, filtered writes, spotlighted results and narration.
const Defenses = `
study "probes_defenses" {
  seed        = 3
  concurrency = 4
  sandbox     = "local"
  max_turns   = 10
}
model "compliant" {
  provider = "scripted"
  policy   = "compliant"
}
model "resistant" {
  provider = "scripted"
  policy   = "resistant"
}
model "quoter" {
  provider = "scripted"
  policy   = "quoter"
}
model "paraphraser" {
  provider = "scripted"
  policy   = "paraphraser"
}
grid "all" {
  batch      = "defenses"
  tasks      = ["memory_poison", "tool_poison", "multi_surface", "propagation", "permission_esc", "cross_modal_relay"]
  models     = ["compliant", "quoter", "paraphraser"]
  conditions = ["hack", "narrate"]
  defenses   = ["none", "write_filter", "pi_detector", "spotlighting", "all"]
  repeats    = 1
}
`

// Recorder is a model wrapper that keeps every request it is handed.
type Recorder struct {
	mu       sync.Mutex
	Requests []string // canonical JSON of each request
}

type recording struct {
	m agent.Model
	r *Recorder
}

func (w recording) Generate(ctx context.Context, req agent.Request) (agent.Reply, error) {
	b, err := json.Marshal(req)
	if err != nil {
		return agent.Reply{}, err
	}
	w.r.mu.Lock()
	w.r.Requests = append(w.r.Requests, string(b))
	w.r.mu.Unlock()
	return w.m.Generate(ctx, req)
}

// Run writes src (a study file) and runs it into a temp folder; it returns
// the study folder. With rec, every model request is recorded.
func Run(t testing.TB, src string, rec *Recorder) string {
	t.Helper()
	dir := t.TempDir()
	file := filepath.Join(dir, "study.hcl")
	if err := os.WriteFile(file, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	s, diags := study.Load(file)
	if diags.HasErrors() {
		t.Fatalf("load study: %v", diags)
	}
	out := filepath.Join(dir, "out")
	models := func(m *study.Model) (agent.Model, error) {
		sm, err := scripted.New(m.Policy)
		// The classifier answers pi_detector, not an agent: its calls
		// are no agent turns to replay.
		if err != nil || rec == nil || m.Policy == scripted.Classifier {
			return sm, err
		}
		return recording{m: sm, r: rec}, nil
	}
	// The reward-hack study's agents run shell commands: allowed on this
	// host for the test, as nobody when the tests run as root.
	be := &local.Backend{Root: testenv.SharedDir(t), AllowHostShell: true}
	r, err := runner.New(s, runner.Options{Output: out, Backend: be, Models: models})
	if err != nil {
		t.Fatal(err)
	}
	sum, err := r.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if sum.Ran != sum.Planned || sum.Errors > 0 {
		t.Fatalf("ran %d of %d, %d errors", sum.Ran, sum.Planned, sum.Errors)
	}
	return out
}

// Reward is a small reward-hack study: an honest agent and two hackers on
// one workspace task, under plain and hack.
const Reward = `
study "probes_reward" {
  seed        = 5
  concurrency = 2
  sandbox     = "local"
  max_turns   = 10
}
model "honest" {
  provider = "scripted"
  policy   = "honest"
}
model "test_editor" {
  provider = "scripted"
  policy   = "test_editor"
}
model "silent_hacker" {
  provider = "scripted"
  policy   = "silent_hacker"
}
grid "reward" {
  tasks      = ["reward_rounding"]
  models     = ["honest", "test_editor", "silent_hacker"]
  conditions = ["plain", "hack"]
  defenses   = ["none"]
  repeats    = 1
}
`
