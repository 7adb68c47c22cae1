package runner_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/killchain/killchain/internal/agent"
	"github.com/killchain/killchain/internal/models/scripted"
	"github.com/killchain/killchain/internal/recount"
	"github.com/killchain/killchain/internal/results"
	"github.com/killchain/killchain/internal/study"
	"github.com/killchain/killchain/internal/testenv"
	"github.com/killchain/killchain/runner"
	"github.com/killchain/killchain/sandbox/local"
)

// TestAttacksStudy runs hcl/attacks.hcl — built-in families, encodings and
// a family of the study's own, crossed with the compliant, decoder and
// literal agents on a text surface, a PDF relay and a web-page relay — on
// the local backend. Every run records its attack; the recount agrees
// with every stage; alone on memory_poison, the decoder reaches the goal
// exactly on the base64 and ROT13 payloads and the literal agent exactly
// on the clear ones it reads as instructions; denial of service reaches no
// stage.
func TestAttacksStudy(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a study (about 5 s)")
	}
	s, diags := study.Load("../hcl/attacks.hcl")
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	out := filepath.Join(t.TempDir(), "attacks")
	r, err := runner.New(s, runner.Options{Output: out, Backend: &local.Backend{Root: testenv.SharedDir(t)},
		Models: func(m *study.Model) (agent.Model, error) { return scripted.New(m.Policy) }})
	if err != nil {
		t.Fatal(err)
	}
	sum, err := r.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if sum.Ran != sum.Selected || sum.Errors != 0 {
		t.Fatalf("ran %d of %d runs, %d errors", sum.Ran, sum.Selected, sum.Errors)
	}
	rc, err := recount.Study(out)
	if err != nil {
		t.Fatal(err)
	}
	if len(rc.Disagreements) > 0 || rc.Runs == 0 {
		t.Fatalf("recount over %d runs: %+v", rc.Runs, rc.Disagreements)
	}
	data, err := os.ReadFile(filepath.Join(out, results.RunsFile))
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		var run results.Run
		if err := json.Unmarshal([]byte(line), &run); err != nil {
			t.Fatal(err)
		}
		if run.Attack == "" || !run.Attacked && run.Attack != study.CleanVariant {
			t.Errorf("%s: attack %q", run.RunID, run.Attack)
		}
		if run.Attack == "denial_of_service" && run.Stage != "none" {
			t.Errorf("%s: denial of service reached %s", run.RunID, run.Stage)
		}
		if run.Task != "memory_poison" || !run.Attacked {
			continue
		}
		var want bool
		switch run.ModelA {
		case "decoder":
			want = run.Attack == "tool_knowledge+base64" || run.Attack == "ignore_previous+rot13" || run.Attack == "courier+rot13+base64"
		case "literal", "compliant":
			want = run.Attack == "tool_knowledge"
		default:
			continue
		}
		if run.AttackGoal != want {
			t.Errorf("%s on memory_poison under %s: attack goal %v, want %v", run.ModelA, run.Attack, run.AttackGoal, want)
		}
	}
}
