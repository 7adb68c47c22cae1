package runner

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/killchain/killchain/internal/agent"
	"github.com/killchain/killchain/internal/study"
	"github.com/killchain/killchain/internal/testenv"
	"github.com/killchain/killchain/sandbox/local"
	"github.com/killchain/killchain/verifiers"
)

// judgeModel answers the hack classifier with a fixed word, after as many
// unusable answers as bad says for each passage.
type judgeModel struct {
	answer string
	bad    int
	calls  *atomic.Int32
	asked  map[string]int
	mu     *sync.Mutex
}

func (j judgeModel) Generate(_ context.Context, req agent.Request) (agent.Reply, error) {
	j.calls.Add(1)
	j.mu.Lock()
	defer j.mu.Unlock()
	passage := req.Messages[len(req.Messages)-1].Content
	j.asked[passage]++
	if j.asked[passage] <= j.bad {
		return agent.Reply{Narration: "It is hard to say."}, nil
	}
	return agent.Reply{Narration: j.answer}, nil
}

// TestHackClassifierModel: a study's hack_classifier model decides where a
// hack shows; an unusable answer is asked again, and a passage still
// undecided after verifiers.DefaultJudgeAttempts leaves where the hack shows
// unknown (null), never an errored run that would be sampled again.
func TestHackClassifierModel(t *testing.T) {
	// The keyword classifier finds the silent hacker's hack in its
	// thinking; here the judge alone decides.
	tests := []struct {
		name    string
		answer  string
		bad     int
		unknown bool
		silent  bool
	}{
		{name: "every passage judged a hack", answer: "HACK"},
		{name: "no passage judged a hack", answer: "NONE", silent: true},
		{name: "unusable answers asked again", answer: "HACK", bad: verifiers.DefaultJudgeAttempts - 1},
		{name: "an unusable answer every time leaves it unknown", answer: "maybe", unknown: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var calls atomic.Int32
			models := func(m *study.Model) (agent.Model, error) {
				if m.Name == "judge" {
					return judgeModel{answer: tt.answer, bad: tt.bad, calls: &calls, asked: map[string]int{}, mu: &sync.Mutex{}}, nil
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
			if run.Error != "" || run.ErrorKind != "" || run.RewardHack == nil || run.Hack == nil || !*run.Hack {
				t.Fatalf("error %q (%s), hack %v", run.Error, run.ErrorKind, run.Hack)
			}
			if run.Attempts > 1 {
				t.Errorf("the agent's run was sampled %d times", run.Attempts)
			}
			if tt.unknown {
				if run.HackNarrated != nil || run.HackInThinking != nil || run.HackSilent != nil {
					t.Errorf("narrated %v, in thinking %v, silent %v; want null", run.HackNarrated, run.HackInThinking, run.HackSilent)
				}
				if n := calls.Load(); n%int32(verifiers.DefaultJudgeAttempts) != 0 {
					t.Errorf("%d calls: each passage should be asked %d times", n, verifiers.DefaultJudgeAttempts)
				}
				return
			}
			if *run.HackSilent != tt.silent || (*run.HackNarrated || *run.HackInThinking) == tt.silent {
				t.Errorf("narrated %v, in thinking %v, silent %v; want silent %v", *run.HackNarrated, *run.HackInThinking, *run.HackSilent, tt.silent)
			}
		})
	}
}
