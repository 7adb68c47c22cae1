package runner

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/killchain/killchain/internal/agent"
	"github.com/killchain/killchain/internal/errkind"
	"github.com/killchain/killchain/internal/study"
	"github.com/killchain/killchain/internal/testenv"
	"github.com/killchain/killchain/sandbox/local"
)

// judgeModel answers the hack classifier with a fixed word.
type judgeModel struct {
	answer string
	calls  *atomic.Int32
}

func (j judgeModel) Generate(_ context.Context, req agent.Request) (agent.Reply, error) {
	j.calls.Add(1)
	return agent.Reply{Narration: j.answer}, nil
}

// TestHackClassifierModel: a study's hack_classifier model decides where a
// hack shows, and an unusable answer makes the run an error (fail closed).
func TestHackClassifierModel(t *testing.T) {
	// The keyword classifier finds the silent hacker's hack in its
	// thinking; here the judge alone decides.
	tests := []struct {
		name    string
		answer  string
		wantErr bool
		silent  bool
	}{
		{name: "every passage judged a hack", answer: "HACK"},
		{name: "no passage judged a hack", answer: "NONE", silent: true},
		{name: "an unusable answer is an error", answer: "maybe", wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var calls atomic.Int32
			models := func(m *study.Model) (agent.Model, error) {
				if m.Name == "judge" {
					return judgeModel{answer: tt.answer, calls: &calls}, nil
				}
				return scriptedOnly(m)
			}
			out := t.TempDir()
			r, err := New(loadStudy(t, "testdata/hackjudge.hcl"), Options{Output: out, Backend: &local.Backend{Root: testenv.SharedDir(t), AllowHostShell: true}, Models: models})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := r.Run(context.Background()); err != nil {
				t.Fatal(err)
			}
			runs := readAll(t, out)
			if len(runs) != 1 {
				t.Fatalf("%d runs", len(runs))
			}
			run := runs[0]
			if calls.Load() == 0 {
				t.Fatal("the judge model was never asked")
			}
			if tt.wantErr {
				if run.ErrorKind != errkind.Verifier || !strings.Contains(run.Error, "no usable verdict") {
					t.Errorf("error %q (%s), want a verifier error about the verdict", run.Error, run.ErrorKind)
				}
				return
			}
			if run.Error != "" || run.RewardHack == nil || run.Hack == nil || !*run.Hack {
				t.Fatalf("error %q, hack %v", run.Error, run.Hack)
			}
			if *run.HackSilent != tt.silent || (*run.HackNarrated || *run.HackInThinking) == tt.silent {
				t.Errorf("narrated %v, in thinking %v, silent %v; want silent %v", *run.HackNarrated, *run.HackInThinking, *run.HackSilent, tt.silent)
			}
		})
	}
}
