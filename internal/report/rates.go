package report

import (
	"math"
	"strconv"

	"github.com/killchain/killchain/internal/stats"
)

// How the report writes counts and rates, in every table. Markdown shows
// k/n and percentages with one decimal, with the Wilson interval; CSV
// holds raw counts and fractions with four decimals, empty where there is
// nothing to divide. Attack success has two denominators (below);
// differences of rates are in percentage points.

// naCell marks a stage that does not apply to the runs' mode.
const naCell = "n/a"

// noneCell marks a rate with no runs to divide by.
const noneCell = "—"

func itoa(n int) string { return strconv.Itoa(n) }

// kn is "k/n".
func kn(k, n int) string { return itoa(k) + "/" + itoa(n) }

// pct is k/n as a percentage with one decimal, or noneCell when n is 0.
func pct(k, n int) string {
	if n == 0 {
		return noneCell
	}
	return pctf(float64(k) / float64(n))
}

func pctf(x float64) string { return strconv.FormatFloat(100*x, 'f', 1, 64) + "%" }

// knPct is "k/n (p%)", or noneCell when n is 0.
func knPct(k, n int) string {
	if n == 0 {
		return noneCell
	}
	return kn(k, n) + " (" + pct(k, n) + ")"
}

// ciLabel names the interval: "95% CI" at the usual z, "CI" otherwise.
func ciLabel(z float64) string {
	if math.Abs(z-stats.Z95) < 1e-3 {
		return "95% CI"
	}
	return "CI"
}

// rateCI is "p% (lo–hi)" with the Wilson interval at z, or noneCell when n is 0.
func rateCI(k, n int, z float64) string {
	if n == 0 {
		return noneCell
	}
	lo, hi := stats.Wilson(k, n, z)
	return pct(k, n) + " (" + strconv.FormatFloat(100*lo, 'f', 1, 64) + "–" +
		strconv.FormatFloat(100*hi, 'f', 1, 64) + ")"
}

// knCI is "k/n · p% (lo–hi)", or noneCell when n is 0.
func knCI(k, n int, z float64) string {
	if n == 0 {
		return noneCell
	}
	return kn(k, n) + " · " + rateCI(k, n, z)
}

// stageCI is knCI for a stage, naCell where the stage applies to no run.
func stageCI(r Rate, z float64) string {
	if r.N == 0 {
		return naCell
	}
	return knCI(r.K, r.N, z)
}

// CSV columns.

// frac is k/n with four decimals, or "" when n is 0.
func frac(k, n int) string {
	if n == 0 {
		return ""
	}
	return fnum(float64(k) / float64(n))
}

func fnum(x float64) string {
	if math.IsNaN(x) {
		return ""
	}
	return strconv.FormatFloat(x, 'f', 4, 64)
}

// csvRate is the k, n, rate, lo and hi columns of a rate; rate and interval
// are empty where n is 0.
func csvRate(r Rate, z float64) []string {
	if r.N == 0 {
		return []string{itoa(r.K), "0", "", "", ""}
	}
	lo, hi := stats.Wilson(r.K, r.N, z)
	return []string{itoa(r.K), itoa(r.N), frac(r.K, r.N), fnum(lo), fnum(hi)}
}

// Attack success is reported over two denominators, side by side wherever a
// table shows it per model, cell or task:
//
//   - all attacked: Executed over every attacked run without an error, the
//     paper's denominator (Counts.ASR). Runs with no tool call count in n.
//   - called payload tool: Executed over the attacked runs without an error
//     that called the payload-carrying tool (no_tool_call false;
//     Counts.CalledASR). An agent that never called the tool never read the
//     payload: it did not resist the attack, it was never reached by it.
//
// Errored runs are in neither: an error is not an outcome.

// Column labels of the two denominators in Markdown and HTML.
const (
	asrAllLabel    = "ASR (all attacked)"
	asrCalledLabel = "ASR (called payload tool)"
)

// calledCSVHeader are the CSV columns of Counts.CalledASR, in csvRate order.
var calledCSVHeader = []string{"called_executed_k", "called_n", "asr_called", "asr_called_lo", "asr_called_hi"}

// rateKnCI is knCI of a Rate: "k/n · p% (lo–hi)", or noneCell when n is 0.
func rateKnCI(r Rate, z float64) string { return knCI(r.K, r.N, z) }

// Differences of rates, in percentage points.

func fnum1(x float64) string { return strconv.FormatFloat(x, 'f', 1, 64) }

// signed formats a difference in percentage points with its sign.
func signed(d float64) string {
	s := fnum1(d)
	if d > 0 {
		return "+" + s
	}
	if s == "-0.0" {
		return "0.0"
	}
	return s
}

// rateDelta is b − a in percentage points with its Newcombe interval, or
// empty strings when either has no runs.
func rateDelta(a, b Rate, z float64) (d, lo, hi string) {
	if a.N == 0 || b.N == 0 {
		return "", "", ""
	}
	diff, l, h := stats.Newcombe(b.K, b.N, a.K, a.N, z)
	return signed(100 * diff), signed(100 * l), signed(100 * h)
}

// deltaCI is "+31.2 (−2.0 to +60.1)", or noneCell.
func deltaCI(d, lo, hi string) string {
	if d == "" {
		return noneCell
	}
	return d + " (" + lo + " to " + hi + ")"
}
