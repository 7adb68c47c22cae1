package cli

import (
	"testing"

	"github.com/killchain/killchain/runner"
)

// TestAdaptiveLine: the run summary names the adaptive rounds' attacker
// errors apart (before, a study whose attacker answered garbage read "8
// runs of the rounds the attackers proposed" and no more), and a cell a
// cost budget stopped is not said to be stopped by tokens.
func TestAdaptiveLine(t *testing.T) {
	for _, tc := range []struct {
		name string
		sum  runner.Summary
		want string
	}{
		{"no adaptive rounds", runner.Summary{Ran: 12}, ""},
		{"rounds", runner.Summary{Rounds: 144},
			"adaptive attacks: 144 runs of the rounds the attackers proposed (see attacker.jsonl)"},
		{"attacker errors", runner.Summary{Rounds: 8, Errors: 8, AttackerErrors: 8},
			"adaptive attacks: 8 runs of the rounds the attackers proposed, 8 of them attacker errors (no usable payload: never started, in no rate) (see attacker.jsonl)"},
		{"budget", runner.Summary{Rounds: 4, Stopped: 1},
			"adaptive attacks: 4 runs of the rounds the attackers proposed; 1 cell stopped at the attacker's budget (max_tokens or max_cost) (see attacker.jsonl)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := adaptiveLine(tc.sum); got != tc.want {
				t.Errorf("got  %q\nwant %q", got, tc.want)
			}
		})
	}
}
