package study

import (
	"slices"
	"strings"
	"testing"
)

// thresholdStudy is header plus a valid grid (lines 15-19), then the
// threshold body given, whose first line is line 21.
func thresholdStudy(body string) string {
	return header + `grid "g" {
  tasks      = ["memory_poison"]
  models     = ["a"]
  conditions = ["hack"]
}
threshold "th" {
` + body + "\n}\n"
}

func TestThresholdInvalid(t *testing.T) {
	cases := []struct {
		name string
		body string
		want []string // "line:col severity summary"
	}{
		{"unknown metric", `  metric = "asrr"
  max = 0.1`, []string{"21:12 error Unknown metric"}},
		{"both bounds", `  metric = "asr"
  max = 0.1
  min = 0.0`, []string{"23:9 error Both max and min"}},
		{"no bound", `  metric = "asr"`, []string{"20:11 error Missing bound"}},
		{"bound above 1", `  metric = "asr"
  max = 10`, []string{"22:9 error Bound out of range"}},
		{"negative bound", `  metric = "errors"
  min = -0.5`, []string{"22:9 error Bound out of range"}},
		{"unknown model", `  metric = "asr"
  models = ["a", "zz"]
  max = 0.1`, []string{"22:18 error Unknown model"}},
		{"unknown task", `  metric = "asr"
  tasks = ["memory_poisn"]
  max = 0.1`, []string{"22:12 error Unknown task"}},
		{"unknown condition and defense", `  metric = "asr"
  conditions = ["hak"]
  defenses = ["write_filtr"]
  max = 0.1`, []string{"22:17 error Unknown condition", "23:15 error Unknown defense"}},
		{"bad pairs", `  metric = "relayed"
  pairs = [["a", "nope"], ["a"]]
  min = 0.5`, []string{"22:18 error Unknown model", "22:27 error Invalid pair"}},
		{"missing metric", `  max = 0.1`, []string{"20:16 error Missing required argument"}},
		{"asr over clean runs can never be judged (issue 19)", `  metric = "asr"
  conditions = ["plain"]
  max = 0.1`, []string{"20:11 error Threshold selects nothing"}},
		{"relayed over single-agent runs can never be judged", `  metric = "relayed"
  max = 0.1`, []string{"20:11 error Threshold selects nothing"}},
		{"hack_rate over injection runs can never be judged", `  metric = "hack_rate"
  max = 0.1`, []string{"20:11 error Threshold selects nothing"}},
		{"empty selector", `  metric = "asr"
  models = []
  max = 0.1`, []string{"22:12 error Empty models"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, diags := Parse("t.hcl", []byte(thresholdStudy(tc.body)))
			got := diagKeys(diags)
			if !slices.Equal(got, tc.want) {
				t.Errorf("diagnostics %q, want %q\n%s", got, tc.want, diags.Error())
			}
		})
	}
	t.Run("duplicate", func(t *testing.T) {
		src := thresholdStudy("  metric = \"asr\"\n  max = 0.1") + "threshold \"th\" {\n  metric = \"asr\"\n  max = 0.2\n}\n"
		_, diags := Parse("t.hcl", []byte(src))
		if got := diagKeys(diags); !slices.Equal(got, []string{"24:11 error Duplicate threshold block"}) {
			t.Errorf("diagnostics %q", got)
		}
	})
}

func TestThresholdValid(t *testing.T) {
	s, diags := Parse("t.hcl", []byte(thresholdStudy(`  metric     = "asr"
  models     = ["a"]
  pairs      = [["a", "b"]]
  tasks      = ["memory_poison"]
  conditions = ["hack", "narrate"]
  defenses   = ["none"]
  max        = 0.1`)))
	if diags.HasErrors() {
		t.Fatal(diags.Error())
	}
	if len(s.Thresholds) != 1 {
		t.Fatalf("thresholds %v", s.Thresholds)
	}
	th := s.Thresholds[0]
	if th.Name != "th" || th.Metric != MetricASR || th.Bound != BoundMax || th.Value != 0.1 ||
		!slices.Equal(th.Pairs, [][2]string{{"a", "b"}}) || strings.Join(th.Conditions, ",") != "hack,narrate" {
		t.Errorf("threshold %+v", th)
	}
	if got := th.Rule(); got != "asr ≤ 0.1" {
		t.Errorf("Rule() = %q", got)
	}
}
