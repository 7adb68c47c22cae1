package kubernetes_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/killchain/killchain/internal/kubetest"
	"github.com/killchain/killchain/sandbox/docker"
	"github.com/killchain/killchain/sandbox/docker/dockertest"
	"github.com/killchain/killchain/sandbox/kubernetes"
	"github.com/killchain/killchain/sandbox/sandboxbench/kubebench"
)

// The benchmark (sandbox/sandboxbench/kubebench) is tested here, in this
// package's test binary, because it needs the test cluster and a host runs
// one at a time (its registry holds 127.0.0.1:5000): a second binary with
// its own kubetest.Main would race this one for it under go test ./....

// TestBenchSmall runs the side-by-side benchmark with a few runs: both
// backends, raw pods and pooled pods measured, ratios and round trips
// filled in.
func TestBenchSmall(t *testing.T) {
	kubeconfig := kubetest.Require(t)
	res, err := kubebench.Bench(context.Background(), kubebench.Options{Runs: 2, Calls: 20, Concurrency: []int{1, 2}, Docker: benchDocker(t),
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

// benchDocker opens the Docker backend measured beside the cluster, which
// also builds the snapshot images.
func benchDocker(t *testing.T) *docker.Backend {
	t.Helper()
	opts := docker.DefaultOptions()
	opts.Client = dockertest.Require(t)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	d, err := docker.New(ctx, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close(context.Background()) })
	return d
}
