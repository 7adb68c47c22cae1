package runner

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/killchain/killchain/internal/agent"
	"github.com/killchain/killchain/internal/errkind"
	"github.com/killchain/killchain/internal/models/scripted"
	"github.com/killchain/killchain/internal/study"
)

// refusedKey is a driver's 401: no later call can succeed.
type refusedKey struct{}

func (refusedKey) Error() string { return "401 Unauthorized: authentication refused" }
func (refusedKey) Fatal() bool   { return true }

type refusingWriter struct{}

func (refusingWriter) Generate(context.Context, agent.Request) (agent.Reply, error) {
	return agent.Reply{}, refusedKey{}
}

// TestAdaptiveFatalAttacker: an attacker model whose key is refused stops
// the study as a target's would, instead of asking again and recording
// every round of every cell as attacker errors that a resume never runs
// again; once the key is fixed, a resume proposes those rounds.
func TestAdaptiveFatalAttacker(t *testing.T) {
	out := filepath.Join(t.TempDir(), "adaptive")
	refusing := func(m *study.Model) (agent.Model, error) {
		if m.Name == "writer" {
			return refusingWriter{}, nil
		}
		return scripted.New(m.Policy)
	}
	runFatal(t, loadStudy(t, adaptiveStudy), out, refusing)
	for _, rec := range readAll(t, out) {
		if rec.ErrorKind == errkind.Attacker {
			t.Errorf("%s: recorded as an attacker error: %s", rec.RunID, rec.Error)
		}
	}
	for _, ar := range readRounds(t, out) {
		if ar.Attacker == "llm" {
			t.Errorf("round %d of %s logged (error %q): a resume would not ask again", ar.Round, ar.Loop, ar.Error)
		}
	}
	sum := runAdaptive(t, out, adaptiveModels(goodWriter, 300), true)
	if sum.AttackerErrors != 0 || sum.Rounds == 0 {
		t.Errorf("resume: %d attacker errors, %d round runs; want none and some", sum.AttackerErrors, sum.Rounds)
	}
	asked := 0
	for _, ar := range readRounds(t, out) {
		if ar.Attacker == "llm" && len(ar.Payloads) > 0 {
			asked++
		}
	}
	if asked == 0 {
		t.Error("the resume proposed no round of the model attacker")
	}
}
