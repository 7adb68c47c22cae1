package cli

import (
	"testing"

	"github.com/killchain/killchain/internal/cost"
	"github.com/killchain/killchain/internal/study"
	"github.com/killchain/killchain/runner"
)

// TestSpendLine: the summary's cost line. What was spent is the folder's
// in all; the 429s are this start's, and a resume says so.
func TestSpendLine(t *testing.T) {
	priced := &study.Study{Models: []*study.Model{{Name: "box", Provider: "openai_compatible", Price: &cost.Price{Input: 1, Output: 2}}}}
	unpriced := &study.Study{Models: []*study.Model{{Name: "ref", Provider: "scripted"}}}
	tests := []struct {
		name string
		s    *study.Study
		sum  runner.Summary
		want string
	}{
		{"fresh start", priced, runner.Summary{Spent: 0.25, RateLimited: 3}, "cost: $0.25 spent, 3 rate-limit answers (429)"},
		{"resume", priced, runner.Summary{Spent: 0.25, RateLimited: 3, Skipped: 10, CostLimit: 1},
			"cost: $0.25 spent of a $1.00 limit, 3 rate-limit answers (429) in this start"},
		{"a sum's binary noise", priced, runner.Summary{Spent: 0.1 + 0.1 + 0.1 + 0.68, CostLimit: 1},
			"cost: $0.98 spent of a $1.00 limit"},
		{"under a cent", priced, runner.Summary{Spent: 0.00421}, "cost: $0.0042 spent"},
		{"no price, no limit, no 429", unpriced, runner.Summary{Skipped: 2}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := spendLine(tt.s, tt.sum); got != tt.want {
				t.Errorf("spendLine = %q, want %q", got, tt.want)
			}
		})
	}
}
