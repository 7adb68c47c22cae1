package cli

import (
	"slices"
	"strings"
	"testing"
)

// TestPlanSubset prints the subset's totals after how many runs of the
// full plan it keeps, and names unknown names with the valid ones.
func TestPlanSubset(t *testing.T) {
	tests := []struct {
		name   string
		args   []string
		code   int
		stdout []string
		stderr []string
	}{
		{name: "tasks and sample", args: []string{"--tasks", "memory_poison", "--tasks", "tool_poison", "--sample", "40", "--runs"}, stdout: []string{
			"selection --tasks memory_poison,tool_poison --sample 40 --sample-seed 42: 40 of the study's 390 runs",
			"total         40 runs", "memory_poison-", "tool_poison-"}},
		{name: "subset without audio on local", args: []string{"--sandbox", "local", "--grids", "agents_relay,narrate_relay"},
			stdout: []string{"84 of the study's 390 runs"}},
		{name: "sample below the strata", args: []string{"--sample", "3", "--sample-seed", "1"},
			stdout: []string{"total         3 runs"}, stderr: []string{"--sample 3 is below the 81 strata", "round-robin"}},
		{name: "unknown names", args: []string{"--tasks", "tool_poisn", "--defenses", "spotlight"}, code: 1, stderr: []string{
			`did you mean "tool_poison"?`, `did you mean "spotlighting"?`, "its grids use: none, write_filter"}},
		{name: "sample seed without a sample", args: []string{"--sample-seed", "3"}, code: 1,
			stderr: []string{"--sample-seed seeds --sample, which is not set"}},
		{name: "keeps nothing", args: []string{"--grids", "narrate_relay", "--conditions", "plain"}, code: 1,
			stderr: []string{"keeps none of the study's 390 runs"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, stdout, stderr := killchain(append(append([]string{"plan"}, tt.args...), smokeFile)...)
			if code != tt.code {
				t.Fatalf("exit %d, want %d\n%s%s", code, tt.code, stdout, stderr)
			}
			for _, w := range tt.stdout {
				if !strings.Contains(stdout, w) {
					t.Errorf("stdout lacks %q:\n%s", w, stdout)
				}
			}
			for _, w := range tt.stderr {
				if !strings.Contains(stderr, w) {
					t.Errorf("stderr lacks %q:\n%s", w, stderr)
				}
			}
			if tt.code == 0 && !slices.Contains(strings.Fields(stdout), "total") {
				t.Errorf("no plan printed:\n%s", stdout)
			}
		})
	}
}
