package docker

import (
	"context"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/moby/moby/client"

	"github.com/killchain/killchain/sandbox/docker/dockertest"
)

// dockerErr is why Docker is unusable in this test binary ("" when usable).
var dockerErr string

// TestMain builds the images once for every test of the binary.
func TestMain(m *testing.M) {
	cli, err := dockertest.Available()
	if err != nil {
		dockerErr = err.Error()
	} else {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
		b, err := New(ctx, Options{Client: cli})
		cancel()
		if err != nil {
			fmt.Fprintln(os.Stderr, "building images:", err)
			os.Exit(1)
		}
		b.Close(context.Background())
		cli.Close()
	}
	os.Exit(m.Run())
}

// requireDocker skips (or fails under CI) when Docker is absent.
func requireDocker(t *testing.T) *client.Client {
	t.Helper()
	if dockerErr != "" && !dockertest.CI() {
		t.Skipf("docker is not available: %s", dockerErr)
	}
	return dockertest.Require(t)
}

// newBackend opens a backend for one test with probes allowed; it is closed
// when the test ends.
func newBackend(t *testing.T, opts Options) *Backend {
	t.Helper()
	cli := requireDocker(t)
	opts.Client = cli
	opts.allowProbe = true
	if testing.Verbose() {
		opts.Logger = hclog.New(&hclog.LoggerOptions{Name: "test", Level: hclog.Debug, Output: os.Stderr})
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	b, err := New(ctx, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close(context.Background()) })
	return b
}

// studyContainers lists the containers labelled with study.
func studyContainers(t *testing.T, cli *client.Client, study string) []string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	list, err := cli.ContainerList(ctx, client.ContainerListOptions{All: true, Filters: client.Filters{}.Add("label", LabelStudy+"="+study)})
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, c := range list.Items {
		out = append(out, fmt.Sprint(c.Names, c.State))
	}
	return out
}

// uniqueStudy returns a study name no other test uses.
func uniqueStudy(t *testing.T) string {
	return fmt.Sprintf("test-%s-%d", t.Name(), time.Now().UnixNano())
}

// requireDockerB is requireDocker for benchmarks.
func requireDockerB(b *testing.B) *client.Client {
	b.Helper()
	if dockerErr != "" && !dockertest.CI() {
		b.Skipf("docker is not available: %s", dockerErr)
	}
	return dockertest.Require(b)
}
