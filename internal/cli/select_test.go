package cli

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/killchain/killchain/internal/study"
)

// TestApplySampleNamesSuites: a sample too small for the plan's suites
// says on stderr which suites it keeps no run of, and which it keeps
// without a pair or a clean control.
func TestApplySampleNamesSuites(t *testing.T) {
	var plan []study.Run
	for _, su := range []string{"bank", "chat", "travel"} {
		for _, attacked := range []bool{false, true} {
			cond, inj := "plain", ""
			if attacked {
				cond, inj = "hack", su+".steal"
			}
			for i := range 2 {
				task := fmt.Sprintf("%s.task%d", su, i)
				plan = append(plan, study.Run{Grid: su, Task: task, Suite: su, Injection: inj, Condition: cond, Attacked: attacked,
					Defense: "none", ModelA: "m", Cell: task + "/" + cond, RunID: fmt.Sprintf("%s-%s-%d", task, cond, i)})
			}
		}
	}
	for _, tc := range []struct {
		name string
		n    int
		want []string // lines of stderr, in order
	}{
		{"a pair and a clean control of every suite", 6, nil},
		{"a pair of every suite", 3, []string{"keeps no attacked run or no clean control of 3 suites: bank, chat, travel"}},
		{"below the suites", 2, []string{"below the 12 strata", "keeps no run of 1 suite: travel",
			"keeps no attacked run or no clean control of 2 suites: bank, chat"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var stderr bytes.Buffer
			got, err := apply(&study.Selection{Sample: tc.n, Seed: 42}, plan, &stderr)
			if err != nil || len(got) != tc.n {
				t.Fatalf("kept %d runs, %v", len(got), err)
			}
			lines := strings.Split(strings.TrimSpace(stderr.String()), "\n")
			if tc.want == nil {
				if strings.Contains(stderr.String(), "keeps no") {
					t.Errorf("stderr names a suite: %s", stderr.String())
				}
				return
			}
			for _, w := range tc.want {
				if !strings.Contains(stderr.String(), w) {
					t.Errorf("stderr lacks %q:\n%s", w, strings.Join(lines, "\n"))
				}
			}
		})
	}
}
