package report

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/killchain/killchain/internal/benchdata"
)

// BenchmarkReport1M generates a 1,000,000-run synthetic study once (cached
// in the temp dir; about 2 GB) and times the whole report on it: tables and
// figures from runs.jsonl and events.jsonl, per-run views of the flagged
// runs and a sample (the synthetic study has no transcripts).
func BenchmarkReport1M(b *testing.B) { benchReport(b, 1_000_000) }

// BenchmarkReport10k is the same on 10,000 runs.
func BenchmarkReport10k(b *testing.B) { benchReport(b, 10_000) }

func benchReport(b *testing.B, n int) {
	dir, err := benchdata.Cached(os.TempDir(), n, 1)
	if err != nil {
		b.Fatal(err)
	}
	out := filepath.Join(b.TempDir(), "report")
	b.ResetTimer()
	for b.Loop() {
		m, err := benchdata.Measure(func() error { return Write(dir, Options{OutDir: out}) })
		if err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(float64(m.PeakHeap)/(1<<20), "peak-heap-MB")
		b.ReportMetric(float64(m.PeakSys)/(1<<20), "peak-sys-MB")
		b.ReportMetric(float64(m.MaxRSS)/(1<<20), "maxrss-MB")
	}
}
