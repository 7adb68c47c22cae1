package study

import (
	"fmt"
	"slices"
	"testing"

	"github.com/hashicorp/hcl/v2"
)

// suiteThresholdStudy is suiteHead, a grid over the suite and one over a
// task (lines 19-28), then the threshold body given, whose first line is
// line 30.
func suiteThresholdStudy(body string) string {
	return suiteHead + `grid "bank" {
  suites     = ["minibank"]
  models     = ["compliant"]
  conditions = ["plain", "hack"]
}
grid "tasks" {
  tasks      = ["memory_poison"]
  models     = ["resistant"]
  conditions = ["plain", "hack"]
}
threshold "th" {
` + body + "\n}\n"
}

func TestSuiteThresholds(t *testing.T) {
	for _, tc := range []struct {
		name, body string
		want       []string // "line:col summary" of the errors
	}{
		{"utility of a suite", `  metric = "utility"
  suites = ["minibank"]
  min = 0.9`, nil},
		{"utility under attack of user tasks", `  metric = "utility_under_attack"
  user_tasks = ["minibank.pay_bill", "minibank.chain"]
  min = 0.5`, nil},
		{"targeted ASR of an injection", `  metric = "targeted_asr"
  injections = ["minibank.invite"]
  models = ["compliant"]
  max = 0.1`, nil},
		{"unknown suite, user task and injection", `  metric = "targeted_asr"
  suites = ["minibnak"]
  user_tasks = ["minibank.pay"]
  injections = ["minibank.invte"]
  max = 0.1`, []string{"31:13 Unknown suite", "32:17 Unknown user task", "33:17 Unknown injection"}},
		{"utility of a model with no suite run", `  metric = "utility"
  models = ["resistant"]
  min = 0.9`, []string{"29:11 Threshold selects nothing"}},
		{"targeted ASR of clean controls", `  metric = "targeted_asr"
  conditions = ["plain"]
  max = 0.1`, []string{"29:11 Threshold selects nothing"}},
		{"utility of an injection: a clean control plants none", `  metric = "utility"
  injections = ["minibank.invite"]
  min = 0.9`, []string{"29:11 Threshold selects nothing"}},
		{"a suite selector picks no task run", `  metric = "asr"
  suites = ["minibank"]
  tasks = ["memory_poison"]
  max = 0.1`, []string{"29:11 Threshold selects nothing"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, diags := parseSuite(t, suiteThresholdStudy(tc.body))
			var got []string
			for _, d := range diags {
				if d.Severity == hcl.DiagError {
					got = append(got, fmt.Sprintf("%d:%d %s", d.Subject.Start.Line, d.Subject.Start.Column, d.Summary))
				}
			}
			if !slices.Equal(got, tc.want) {
				t.Fatalf("errors %q, want %q\n%v", got, tc.want, diags)
			}
			if tc.want != nil {
				return
			}
			th := s.Thresholds[0]
			if len(th.Suites)+len(th.UserTasks)+len(th.Injections) == 0 {
				t.Errorf("threshold %+v has no suite selector", th)
			}
		})
	}
}
