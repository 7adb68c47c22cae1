package runner

import (
	"context"
	"math"
	"testing"
	"time"

	"github.com/killchain/killchain/internal/results"
	"github.com/killchain/killchain/internal/study"
	"github.com/killchain/killchain/sandbox/local"
	"github.com/killchain/killchain/tasks/suitetest"
)

// BenchmarkSuiteVsStateless runs a 1,000-run suite study (the Go-built
// bank suite: three user tasks of one, two and three roles, each clean
// and under two injections) on the local backend with the compliant
// reference agent, then a stateless study of the built-in tasks with as
// many tool calls in all, and reports both side by side, measured in the
// same run: runs/s and tool calls/s of each, and the ratio of the suite's
// wall time to the stateless study's (docs/benchmarks.md).
//
//	go test ./runner -run '^$' -bench SuiteVsStateless -benchtime 1x
func BenchmarkSuiteVsStateless(b *testing.B) {
	for b.Loop() {
		suite, suiteCalls, suiteTime := benchStudy(b, benchSuite(b, 111)) // 9 cells × 111 = 999 runs
		// A small stateless study gives its tool calls per run; the measured
		// one has as many tool calls in all as the suite study.
		calRuns, calCalls, _ := benchStudy(b, benchStateless(b, 2))
		reps := max(1, int(math.Round(float64(suiteCalls)*float64(calRuns)/float64(calCalls)/benchStatelessCells)))
		stateless, statelessCalls, statelessTime := benchStudy(b, benchStateless(b, reps))
		b.ReportMetric(float64(suite)/suiteTime.Seconds(), "suite-runs/s")
		b.ReportMetric(float64(stateless)/statelessTime.Seconds(), "stateless-runs/s")
		b.ReportMetric(float64(suiteCalls)/suiteTime.Seconds(), "suite-calls/s")
		b.ReportMetric(float64(statelessCalls)/statelessTime.Seconds(), "stateless-calls/s")
		// The same work in tool calls: the suite's time per call over the
		// stateless study's.
		ratio := (suiteTime.Seconds() / float64(suiteCalls)) / (statelessTime.Seconds() / float64(statelessCalls))
		b.ReportMetric(ratio, "time-per-call-ratio")
		b.Logf("suite: %d runs, %d tool calls in %s; stateless: %d runs, %d tool calls in %s; ratio %.2f",
			suite, suiteCalls, suiteTime.Round(time.Millisecond), stateless, statelessCalls, statelessTime.Round(time.Millisecond), ratio)
	}
}

// benchStatelessCells is how many cells a repeat of benchStateless plans.
const benchStatelessCells = 4

// suiteStudyTB is testdata/suite.hcl with the Go-built suite.
func suiteStudyTB(b *testing.B) *study.Study {
	b.Helper()
	s, diags := study.Load("testdata/suite.hcl")
	if diags.HasErrors() {
		b.Fatal(diags)
	}
	set, err := suitetest.AddTo(s.Tasks)
	if err != nil {
		b.Fatal(err)
	}
	s.Tasks = set
	return s
}

// benchSuite is the suite study with repeats of its nine cells.
func benchSuite(b *testing.B, repeats int) *study.Study {
	s := suiteStudyTB(b)
	s.Grids = []*study.Grid{{Name: "bank", Batch: "bank", Suites: []string{"minibank"}, Models: []string{"compliant"},
		Conditions: []string{"plain", "hack"}, Defenses: []string{"none"}, Repeats: repeats}}
	return s
}

// benchStateless is a study of built-in tasks without state (a single
// agent and a memory relay, clean and attacked) with repeats of its four
// cells.
func benchStateless(b *testing.B, repeats int) *study.Study {
	s := suiteStudyTB(b)
	s.Grids = []*study.Grid{{Name: "plain", Batch: "plain", Tasks: []string{"tool_poison", "propagation"}, Variants: []string{"direct"},
		Models: []string{"compliant"}, Conditions: []string{"plain", "hack"}, Defenses: []string{"none"}, Repeats: repeats}}
	return s
}

// benchStudy runs a study on the local backend and returns its runs, its
// tool calls in all and its wall time.
func benchStudy(b *testing.B, s *study.Study) (int, int, time.Duration) {
	b.Helper()
	out := b.TempDir()
	s.Concurrency = 4
	r, err := New(s, Options{Output: out, Backend: &local.Backend{Root: b.TempDir()}, Models: scriptedOnly})
	if err != nil {
		b.Fatal(err)
	}
	start := time.Now()
	sum, err := r.Run(context.Background())
	took := time.Since(start)
	if err != nil || sum.Errors > 0 {
		b.Fatalf("run: %v, %d errors", err, sum.Errors)
	}
	runs, calls := 0, 0
	if err := results.ReadRuns(out+"/"+results.RunsFile, func(r results.Run) error {
		runs++
		calls += r.ToolCallsA + r.ToolCallsB
		return nil
	}); err != nil {
		b.Fatal(err)
	}
	return runs, calls, took
}
