package kubebench

import (
	"context"
	"strings"
	"testing"

	"github.com/killchain/killchain/internal/kubetest"
	"github.com/killchain/killchain/sandbox/kubernetes"
)

// TestBenchSmall runs the side-by-side benchmark with a few runs: both
// backends, raw pods and pooled pods measured, ratios and round trips
// filled in.
func TestBenchSmall(t *testing.T) {
	kubeconfig := kubetest.Require(t)
	res, err := Bench(context.Background(), Options{Runs: 2, Calls: 20, Concurrency: []int{1, 2}, Docker: newDocker(t),
		Backend: kubernetes.Options{Kubeconfig: kubeconfig, Registry: kubetest.Registry}})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []string{"1", "2"} {
		if res.Docker.RunsPerSec[c] <= 0 || res.Kubernetes.RunsPerSec[c] <= 0 || res.Ratio[c] <= 0 ||
			res.RawPods[c] <= 0 || res.Pooled[c] <= 0 || res.RawRatio[c] <= 0 || res.PooledRatio[c] <= 0 {
			t.Errorf("concurrency %s: %+v", c, res)
		}
	}
	if res.Docker.ToolCallMedianMS <= 0 || res.Kubernetes.ToolCallP99MS < res.Kubernetes.ToolCallMedianMS {
		t.Errorf("round trips: %+v", res)
	}
	var text strings.Builder
	res.WriteText(&text)
	if !strings.Contains(text.String(), "kubernetes runs/s") {
		t.Errorf("text:\n%s", text.String())
	}
}
