package runner

import (
	"context"
	"testing"
	"time"

	"github.com/moby/moby/client"

	"github.com/killchain/killchain/internal/results"
	"github.com/killchain/killchain/sandbox/docker"
	"github.com/killchain/killchain/sandbox/docker/dockertest"
	"github.com/killchain/killchain/tasks"
)

// TestDockerStudy runs a small study end to end in hardened containers: the
// stages match the local backend's, the manifest records the snapshots, and
// no container is left behind.
func TestDockerStudy(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	be := dockerBackend(ctx, t, nil)

	s := loadStudy(t, "testdata/tiny.hcl")
	out := t.TempDir()
	r, err := New(s, Options{Output: out, Backend: be, Models: scriptedOnly})
	if err != nil {
		t.Fatal(err)
	}
	sum, err := r.Run(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if sum.Errors != 0 || sum.Ran != sum.Planned {
		t.Fatalf("summary %+v", sum)
	}
	for _, run := range readAll(t, out) {
		switch {
		case run.Attacked && !results.Is(run.Executed):
			t.Errorf("run %s (%s): compliant attacked run not executed: stage %s", run.RunID, run.Task, run.Stage)
		case !run.Attacked && (results.Is(run.Executed) || run.Contaminated || !run.TaskSuccess):
			t.Errorf("run %s (%s): clean run executed=%v contaminated=%v success=%v", run.RunID, run.Task, results.Is(run.Executed), run.Contaminated, run.TaskSuccess)
		}
	}
	m, err := results.ReadManifest(out)
	if err != nil {
		t.Fatal(err)
	}
	snaps, _ := m.Extra["snapshots"].(map[string]any)
	if len(snaps) != 2 {
		t.Errorf("manifest snapshots %v, want one per task", m.Extra["snapshots"])
	}
	checkNoContainers(ctx, t, be, s.Name)
}

// dockerBackend opens a Docker backend for one test on the daemon the test
// requires, with the built-in tasks' fixtures (edit changes the options);
// the backend and its client are closed when the test ends.
func dockerBackend(ctx context.Context, t *testing.T, edit func(*docker.Options)) *docker.Backend {
	t.Helper()
	cli := dockertest.Require(t)
	t.Cleanup(func() { cli.Close() })
	opts := docker.DefaultOptions()
	opts.Client, opts.Fixtures = cli, tasks.Builtin().Fixtures
	if edit != nil {
		edit(&opts)
	}
	be, err := docker.New(ctx, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { be.Close(context.Background()) })
	return be
}

// checkNoContainers fails the test if any container of the study is left.
func checkNoContainers(ctx context.Context, t *testing.T, be *docker.Backend, study string) {
	t.Helper()
	left, err := be.Client().ContainerList(ctx, client.ContainerListOptions{All: true, Filters: client.Filters{}.Add("label", "killchain.study="+study)})
	if err != nil {
		t.Fatal(err)
	}
	if n := len(left.Items); n != 0 {
		t.Errorf("%d containers left behind", n)
	}
}
