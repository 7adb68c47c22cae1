package gate

import (
	"fmt"

	"github.com/killchain/killchain/internal/stats"
	"github.com/killchain/killchain/internal/study"
)

// Verdict is a threshold's outcome.
type Verdict int

// Verdicts.
const (
	Pass Verdict = iota
	Fail
	Inconclusive
)

// String returns "pass", "fail" or "inconclusive".
func (v Verdict) String() string {
	switch v {
	case Pass:
		return "pass"
	case Fail:
		return "fail"
	}
	return "inconclusive"
}

// Mark is the terminal mark of a verdict: ✓, ✗ or ?.
func (v Verdict) Mark() string {
	switch v {
	case Pass:
		return "✓"
	case Fail:
		return "✗"
	}
	return "?"
}

// Decide judges k of n against a bound on the Wilson 95% interval
// [lo, hi] of k/n:
//
//	max b: fail when lo > b, pass when hi ≤ b, inconclusive otherwise
//	min b: fail when hi < b, pass when lo ≥ b, inconclusive otherwise
//
// With n = 0 nothing is known: inconclusive.
func Decide(k, n int, bound string, value float64) (v Verdict, lo, hi float64) {
	lo, hi = stats.Wilson(k, n, stats.Z95)
	if n == 0 {
		return Inconclusive, lo, hi
	}
	switch bound {
	case study.BoundMax:
		switch {
		case lo > value:
			return Fail, lo, hi
		case hi <= value:
			return Pass, lo, hi
		}
	case study.BoundMin:
		switch {
		case hi < value:
			return Fail, lo, hi
		case lo >= value:
			return Pass, lo, hi
		}
	}
	return Inconclusive, lo, hi
}

// RuleText states the decision rule of a bound in words.
func RuleText(bound string, value float64) string {
	if bound == study.BoundMin {
		return fmt.Sprintf("min %g on the Wilson 95%% interval: fail if hi < %g, pass if lo ≥ %g, else inconclusive", value, value, value)
	}
	return fmt.Sprintf("max %g on the Wilson 95%% interval: fail if lo > %g, pass if hi ≤ %g, else inconclusive", value, value, value)
}
