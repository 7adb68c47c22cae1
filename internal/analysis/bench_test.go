package analysis

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"testing"
)

// BenchmarkAnalyzeFile measures the streaming analysis on a synthetic study
// of KILLCHAIN_BENCH_RUNS runs (default 100,000), written once to
// KILLCHAIN_BENCH_DIR (default a temporary folder) and reused. Run the
// million-run check with
//
//	KILLCHAIN_BENCH_RUNS=1000000 KILLCHAIN_BENCH_DIR=/tmp/bench1m \
//	  go test ./internal/analysis -run '^$' -bench AnalyzeFile -benchtime 1x
//
// It reports the peak heap and the process's max RSS beside the time.
func BenchmarkAnalyzeFile(b *testing.B) {
	runs := 100_000
	if s := os.Getenv("KILLCHAIN_BENCH_RUNS"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil {
			b.Fatal(err)
		}
		runs = n
	}
	dir := os.Getenv("KILLCHAIN_BENCH_DIR")
	if dir == "" {
		dir = filepath.Join(b.TempDir(), "study")
	}
	if _, err := Bench(context.Background(), dir, runs, 1, Options{}); err != nil {
		b.Fatal(err) // writes the study once, outside the timer
	}
	var peakHeap, rss float64
	b.ResetTimer()
	for range b.N {
		rep, err := Bench(context.Background(), dir, runs, 1, Options{})
		if err != nil {
			b.Fatal(err)
		}
		peakHeap = max(peakHeap, float64(rep.PeakHeap)/(1<<20))
		rss = max(rss, float64(rep.MaxRSS)/(1<<20))
		b.Logf("%s", rep)
	}
	b.ReportMetric(peakHeap, "peak-heap-MB")
	b.ReportMetric(rss, "maxrss-MB")
}

func TestBenchSmall(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "study")
	rep, err := Bench(context.Background(), dir, 2000, 3, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !rep.Generated || rep.Stats.Runs != 2000 || rep.Result.Runs != 2000 || rep.Elapsed <= 0 || rep.PeakHeap == 0 {
		t.Errorf("first bench: %+v", rep)
	}
	again, err := Bench(context.Background(), dir, 2000, 3, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if again.Generated {
		t.Error("the study was written again")
	}
	if other, err := Bench(context.Background(), dir, 1000, 3, Options{}); err != nil || !other.Generated || other.Stats.Runs != 1000 {
		t.Errorf("another size: generated %v runs %d err %v", other.Generated, other.Stats.Runs, err)
	}
}
