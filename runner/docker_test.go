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
	cli := dockertest.Require(t)
	defer cli.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	opts := docker.DefaultOptions()
	opts.Client = cli
	opts.Fixtures = tasks.Builtin().Fixtures
	be, err := docker.New(ctx, opts)
	if err != nil {
		t.Fatal(err)
	}
	defer be.Close(context.Background())

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
	left, err := cli.ContainerList(ctx, client.ContainerListOptions{All: true, Filters: client.Filters{}.Add("label", "killchain.study="+s.Name)})
	if err != nil {
		t.Fatal(err)
	}
	if n := len(left.Items); n != 0 {
		t.Errorf("%d containers left behind", n)
	}
}
