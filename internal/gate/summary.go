package gate

import (
	"fmt"
	"io"
	"strings"

	"github.com/killchain/killchain/internal/sanitize"
	"github.com/killchain/killchain/internal/study"
)

// pct renders a rate as a percentage with one decimal.
func pct(x float64) string { return fmt.Sprintf("%.1f%%", 100*x) }

// Figures renders "k/n = p%, 95% CI lo–hi%".
func (r Result) Figures() string {
	if r.N == 0 {
		return "0/0, no runs selected"
	}
	return fmt.Sprintf("%d/%d = %s, 95%% CI %s–%s", r.K, r.N, pct(float64(r.K)/float64(r.N)), pct(r.Lo), pct(r.Hi))
}

// Reason says which side of the rule decided the verdict.
func (r Result) Reason() string {
	t := r.Threshold
	b := pct(t.Value)
	switch {
	case r.N == 0:
		return "n = 0: nothing to judge"
	case t.Bound == study.BoundMax && r.Verdict == Fail:
		return fmt.Sprintf("lo %s > max %s", pct(r.Lo), b)
	case t.Bound == study.BoundMax && r.Verdict == Pass:
		return fmt.Sprintf("hi %s ≤ max %s", pct(r.Hi), b)
	case t.Bound == study.BoundMin && r.Verdict == Fail:
		return fmt.Sprintf("hi %s < min %s", pct(r.Hi), b)
	case t.Bound == study.BoundMin && r.Verdict == Pass:
		return fmt.Sprintf("lo %s ≥ min %s", pct(r.Lo), b)
	}
	return fmt.Sprintf("interval straddles %s %s", t.Bound, b)
}

// verdictWord is the verdict, marked as failing under strict.
func (r Result) verdictWord(strict bool) string {
	if r.Verdict == Inconclusive && strict {
		return "inconclusive, failing (strict)"
	}
	return r.Verdict.String()
}

// ruleHeader states the decision rule once.
const ruleHeader = "judged on the Wilson 95% interval [lo, hi] of k/n: max fails if lo > max, passes if hi ≤ max; " +
	"min fails if hi < min, passes if lo ≥ min; otherwise inconclusive"

// WriteText prints the terminal summary: one line per threshold with its
// mark, rule, k/n, interval and verdict, the baseline comparison, and the
// overall verdict.
func (rep *Report) WriteText(w io.Writer) error {
	var b strings.Builder
	if len(rep.Thresholds) > 0 {
		fmt.Fprintf(&b, "thresholds (%s", ruleHeader)
		if rep.Strict {
			b.WriteString("; inconclusive fails (strict)")
		}
		b.WriteString("):\n")
		for _, r := range rep.Thresholds {
			fmt.Fprintf(&b, "  %s %s: %s — %s — %s: %s\n", r.Verdict.Mark(), r.Threshold.Name, r.Threshold.Rule(),
				r.Figures(), r.verdictWord(rep.Strict), r.Reason())
		}
	}
	if rep.Baseline != "" {
		fmt.Fprintf(&b, "baseline %s: ASR per model over the cells both hold, now − baseline with Newcombe's 95%% interval; a regression when lo > 0:\n", rep.Baseline)
		if len(rep.Comparisons) == 0 {
			b.WriteString("  no model has attacked runs in cells both folders hold\n")
		}
		for _, c := range rep.Comparisons {
			mark := "✓"
			if c.Regressed {
				mark = "✗"
			}
			fmt.Fprintf(&b, "  %s %s\n", mark, c.Text())
		}
	}
	fmt.Fprintf(&b, "gate: %s\n", rep.Verdict())
	_, err := io.WriteString(w, b.String())
	return err
}

// Text renders a comparison: k/n now and then, the difference and its
// interval in percentage points.
func (c Comparison) Text() string {
	return fmt.Sprintf("%s: ASR %d/%d now vs %d/%d, difference %+.1f pts (95%% CI %+.1f to %+.1f)%s",
		c.Model, c.K, c.N, c.BaseK, c.BaseN, 100*c.Diff, 100*c.Lo, 100*c.Hi, map[bool]string{true: " — regression"}[c.Regressed])
}

// Verdict is the one-line overall verdict with its counts.
func (rep *Report) Verdict() string {
	var pass, fail, inc, reg int
	for _, r := range rep.Thresholds {
		switch r.Verdict {
		case Pass:
			pass++
		case Fail:
			fail++
		default:
			inc++
		}
	}
	for _, c := range rep.Comparisons {
		if c.Regressed {
			reg++
		}
	}
	word := "PASS"
	if !rep.Passed() {
		word = fmt.Sprintf("FAIL (exit %d)", ExitBreached)
	}
	s := fmt.Sprintf("%s — %d runs; thresholds: %d pass, %d fail, %d inconclusive", word, rep.Runs, pass, fail, inc)
	if rep.Baseline != "" {
		s += fmt.Sprintf("; baseline regressions: %d", reg)
	}
	return s
}

// WriteMarkdown writes the summary as Markdown, for GITHUB_STEP_SUMMARY.
func (rep *Report) WriteMarkdown(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "## killchain gate: %s\n\n", rep.Study)
	fmt.Fprintf(&b, "**%s**\n\n", rep.Verdict())
	if len(rep.Thresholds) > 0 {
		fmt.Fprintf(&b, "Thresholds are %s", ruleHeader)
		if rep.Strict {
			b.WriteString("; inconclusive fails (strict)")
		}
		b.WriteString(".\n\n| | threshold | rule | k/n | 95% CI | verdict |\n|---|---|---|---|---|---|\n")
		for _, r := range rep.Thresholds {
			ci := "—"
			if r.N > 0 {
				ci = pct(r.Lo) + "–" + pct(r.Hi)
			}
			fmt.Fprintf(&b, "| %s | %s | `%s` | %d/%d | %s | %s: %s |\n", r.Verdict.Mark(), mdEscape(r.Threshold.Name),
				r.Threshold.Rule(), r.K, r.N, ci, r.verdictWord(rep.Strict), r.Reason())
		}
		b.WriteString("\n")
	}
	if rep.Baseline != "" {
		fmt.Fprintf(&b, "Baseline `%s`: ASR per model, Newcombe 95%% interval of the difference; a regression when it lies above 0.\n\n", rep.Baseline)
		b.WriteString("| | model | now | baseline | difference (95% CI) |\n|---|---|---|---|---|\n")
		for _, c := range rep.Comparisons {
			mark := "✓"
			if c.Regressed {
				mark = "✗"
			}
			fmt.Fprintf(&b, "| %s | %s | %d/%d | %d/%d | %+.1f pts (%+.1f to %+.1f) |\n", mark, mdEscape(c.Model),
				c.K, c.N, c.BaseK, c.BaseN, 100*c.Diff, 100*c.Lo, 100*c.Hi)
		}
		b.WriteString("\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// mdEscape keeps a name from breaking a Markdown table: on one line, its
// control characters visible, its pipes inside the cell.
func mdEscape(s string) string { return strings.ReplaceAll(sanitize.Line(s), "|", `\|`) }
