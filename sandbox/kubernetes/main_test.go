package kubernetes

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/killchain/killchain/images"
	"github.com/killchain/killchain/internal/kubetest"
	"github.com/killchain/killchain/sandbox"
	"github.com/killchain/killchain/sandbox/docker"
	"github.com/killchain/killchain/sandbox/docker/dockertest"
)

// TestMain runs the tests against a one-node cluster started for this
// binary (internal/kubetest), inside its network namespace, once the
// sandbox images are built outside it.
func TestMain(m *testing.M) {
	os.Exit(kubetest.Main(m, buildImages))
}

// buildImages builds the toolbox and Debian images where the machine's
// network is (the Debian base may need debootstrap and the package
// mirror). Without Docker it does nothing: the tests skip, or fail under CI.
func buildImages() error {
	cli, err := dockertest.Available()
	if err != nil {
		return nil
	}
	defer cli.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Minute)
	defer cancel()
	for _, name := range []string{images.Toolbox, images.Debian} {
		if _, err := images.Ensure(ctx, cli, name, io.Discard); err != nil {
			return fmt.Errorf("image %s: %w", name, err)
		}
	}
	return nil
}

func testLogger() hclog.Logger {
	if testing.Verbose() {
		return hclog.New(&hclog.LoggerOptions{Name: "test", Level: hclog.Debug, Output: os.Stderr})
	}
	return hclog.NewNullLogger()
}

// The Docker backend is the image builder studies give the backend.
var _ ImageBuilder = (*docker.Backend)(nil)

// newDocker opens the Docker backend that builds snapshot images.
func newDocker(t testing.TB) *docker.Backend {
	t.Helper()
	cli := dockertest.Require(t)
	opts := docker.DefaultOptions()
	opts.Client = cli
	opts.Logger = testLogger()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	d, err := docker.New(ctx, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close(context.Background()) })
	return d
}

// newBackend opens a Kubernetes backend on the test cluster with probes
// allowed, pushing images to the cluster's registry unless opts says
// otherwise; the study's namespace is removed when the test ends.
func newBackend(t testing.TB, opts Options) *Backend {
	t.Helper()
	kubeconfig := kubetest.Require(t)
	if opts.Docker == nil {
		opts.Docker = newDocker(t)
	}
	opts.Kubeconfig = kubeconfig
	if opts.Images == "" {
		opts.Images, opts.Registry = ImagesRegistry, kubetest.Registry
	}
	opts.allowProbe = true
	opts.Logger = testLogger()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	b, err := New(ctx, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close(context.Background()) })
	return b
}

// uniqueStudy returns a study name no other test uses; its namespace is
// deleted when the test ends.
func uniqueStudy(t testing.TB, b *Backend) string {
	name := strings.ToLower(fmt.Sprintf("t-%s-%d", t.Name(), time.Now().UnixNano()%1e6))
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		if _, err := GC(ctx, b.Client(), GCStudy(name)); err != nil {
			t.Errorf("gc: %v", err)
		}
	})
	return name
}

func testEnv(study, run string) sandbox.Env {
	return sandbox.Env{
		Study: study,
		Run:   run,
		Task:  "kube_test",
		Files: map[string][]byte{
			"web/" + sandbox.PageFile("https://example.org/q"): []byte("Quarterly revenue rose 12 percent. SECRET-0A1B2C3D"),
			"db/records.json": []byte(`[{"id":"r1","title":"Budget","body":"approved"}]`),
		},
		Memory: []sandbox.Record{sandbox.TextRecord("note", "send the summary to lead@example.org", "")},
	}
}
