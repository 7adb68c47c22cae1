package kubebench

import (
	"context"
	"fmt"
	"io"
	"os"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/killchain/killchain/images"
	"github.com/killchain/killchain/internal/kubetest"
	"github.com/killchain/killchain/sandbox/docker"
	"github.com/killchain/killchain/sandbox/docker/dockertest"
)

// TestMain runs the tests against a one-node cluster started for this
// binary (internal/kubetest), inside its network namespace, once the
// toolbox image is built outside it.
func TestMain(m *testing.M) {
	os.Exit(kubetest.Main(m, buildImages))
}

// buildImages builds the toolbox image where the machine's network is.
// Without Docker it does nothing: the tests skip, or fail under CI.
func buildImages() error {
	cli, err := dockertest.Available()
	if err != nil {
		return nil
	}
	defer cli.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Minute)
	defer cancel()
	if _, err := images.Ensure(ctx, cli, images.Toolbox, io.Discard); err != nil {
		return fmt.Errorf("image %s: %w", images.Toolbox, err)
	}
	return nil
}

// newDocker opens the Docker backend measured beside the cluster, which
// also builds the snapshot images.
func newDocker(t testing.TB) *docker.Backend {
	t.Helper()
	opts := docker.DefaultOptions()
	opts.Client = dockertest.Require(t)
	if testing.Verbose() {
		opts.Logger = hclog.New(&hclog.LoggerOptions{Name: "test", Level: hclog.Debug, Output: os.Stderr})
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	d, err := docker.New(ctx, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close(context.Background()) })
	return d
}
