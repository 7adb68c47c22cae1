package dockerbench

import (
	"context"
	"fmt"
	"time"

	cerrdefs "github.com/containerd/errdefs"
	"github.com/moby/moby/api/types/container"
	"github.com/moby/moby/client"

	"github.com/killchain/killchain/sandbox/docker"
	"github.com/killchain/killchain/sandbox/warm"
)

// rawLifecycle is the raw lifecycle the benchmark holds killchain's
// against: `docker run --rm` of the snapshot image with the same hardened
// configuration as a run's container (docker.Backend.ContainerConfig),
// through the Docker client alone.
type rawLifecycle struct {
	b       *docker.Backend
	image   string
	study   string
	cleanup time.Duration // bounds a removal, as the backend's CleanupTimeout
}

// run is one lifecycle: create → start → wait → remove, the toolbox
// printing its version and exiting.
func (r rawLifecycle) run(ctx context.Context, run string) error {
	cli := r.b.Client()
	cfg, host := r.b.ContainerConfig(r.image, []string{warm.ToolboxPath, "version"}, map[string]string{docker.LabelStudy: r.study, docker.LabelRun: run})
	cfg.OpenStdin, cfg.StdinOnce, cfg.AttachStdin = false, false, false
	created, err := cli.ContainerCreate(ctx, client.ContainerCreateOptions{Config: cfg, HostConfig: host})
	if err != nil {
		return err
	}
	defer r.remove(ctx, created.ID)
	wait := cli.ContainerWait(ctx, created.ID, client.ContainerWaitOptions{Condition: container.WaitConditionNextExit})
	if _, err := cli.ContainerStart(ctx, created.ID, client.ContainerStartOptions{}); err != nil {
		return err
	}
	select {
	case res := <-wait.Result:
		if res.StatusCode != 0 {
			return fmt.Errorf("raw run exited with %d", res.StatusCode)
		}
	case err := <-wait.Error:
		return err
	}
	return r.remove(ctx, created.ID)
}

// remove force-removes a container and its anonymous volumes on a context
// apart from ctx, as the backend removes a run's.
func (r rawLifecycle) remove(ctx context.Context, id string) error {
	cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), r.cleanup)
	defer cancel()
	_, err := r.b.Client().ContainerRemove(cctx, id, client.ContainerRemoveOptions{Force: true, RemoveVolumes: true})
	if err != nil && !cerrdefs.IsNotFound(err) {
		return fmt.Errorf("remove container %s: %w", id[:min(12, len(id))], err)
	}
	return nil
}
