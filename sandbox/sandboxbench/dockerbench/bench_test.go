package dockerbench

import (
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/killchain/killchain/sandbox/docker"
	"github.com/killchain/killchain/sandbox/docker/dockertest"
)

// TestBenchShape runs a tiny benchmark to check that Bench measures every
// level and leaves nothing behind; it asserts no timing.
func TestBenchShape(t *testing.T) {
	cli := dockertest.Require(t)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	res, err := Bench(ctx, Options{Runs: 2, Concurrency: []int{1, 2}, Calls: 20, Backend: docker.Options{Client: cli}})
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"1", "2"} {
		l, ok := res.Concurrency[k]
		if !ok || l.RawRunsPerSec <= 0 || l.KillchainRunsPerSec <= 0 || l.Ratio <= 0 || l.PooledRunsPerSec <= 0 || l.PooledRatio <= 0 || l.WarmPool <= 0 {
			t.Errorf("level %s = %+v", k, l)
		}
	}
	if res.ToolCallMedianMS <= 0 || res.ToolCallP99MS < res.ToolCallMedianMS {
		t.Errorf("round trip median %v p99 %v", res.ToolCallMedianMS, res.ToolCallP99MS)
	}
	data, _ := json.Marshal(res)
	for _, f := range []string{`"concurrency":{"1":{"raw_runs_per_sec":`, `"killchain_runs_per_sec":`, `"ratio":`, `"pooled_runs_per_sec":`, `"pooled_ratio":`, `"tool_call_median_ms":`, `"tool_call_p99_ms":`} {
		if !strings.Contains(string(data), f) {
			t.Errorf("json %s lacks %s", data, f)
		}
	}
	var sb strings.Builder
	res.WriteText(&sb)
	if !strings.Contains(sb.String(), "median") {
		t.Errorf("text = %q", sb.String())
	}
}

// BenchmarkSandbox runs the full benchmark once and reports its figures:
// go test -run '^$' -bench Sandbox -benchtime 1x ./sandbox/sandboxbench/dockerbench/
func BenchmarkSandbox(b *testing.B) {
	cli := dockertest.Require(b)
	for b.Loop() {
		res, err := Bench(context.Background(), Options{Backend: docker.Options{Client: cli}})
		if err != nil {
			b.Fatal(err)
		}
		for k, l := range res.Concurrency {
			b.ReportMetric(l.RawRunsPerSec, "raw_runs/s@"+k)
			b.ReportMetric(l.KillchainRunsPerSec, "killchain_runs/s@"+k)
			b.ReportMetric(l.Ratio, "ratio@"+k)
			b.ReportMetric(l.PooledRatio, "pooled_ratio@"+k)
		}
		b.ReportMetric(res.ToolCallMedianMS, "call_median_ms")
		b.ReportMetric(res.ToolCallP99MS, "call_p99_ms")
		if os.Getenv("BENCH_JSON") != "" {
			json.NewEncoder(os.Stdout).Encode(res)
		}
	}
}
