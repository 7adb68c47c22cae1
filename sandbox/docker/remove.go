package docker

import (
	"context"
	"fmt"
	"time"

	cerrdefs "github.com/containerd/errdefs"
	"github.com/moby/moby/client"
)

// removeGone asks the daemon to remove a container, and asks again, with a
// growing pause, until the daemon says it is gone or ctx ends. Under load
// a removal can fail half-way ("directory not empty" while the runtime
// still unmounts) and leave the container marked "Removal In Progress";
// a later request removes it. A remove that succeeds is the daemon's word
// that the container is gone; a "not found" is confirmed by inspecting it,
// since a container whose removal is still in progress can answer so and
// still be listed. It returns nil once the container is gone, else the
// last reason it is not, with its state.
func removeGone(ctx context.Context, cli *client.Client, id string) error {
	var last error
	for wait := 50 * time.Millisecond; ; wait = min(2*wait, 2*time.Second) {
		_, err := cli.ContainerRemove(ctx, id, client.ContainerRemoveOptions{Force: true, RemoveVolumes: true})
		if err == nil {
			return nil
		}
		last = err
		ins, ierr := cli.ContainerInspect(ctx, id, client.ContainerInspectOptions{})
		switch {
		case cerrdefs.IsNotFound(ierr):
			return nil
		case ierr == nil && ins.Container.State != nil:
			last = fmt.Errorf("%w (state %s)", err, ins.Container.State.Status)
		}
		select {
		case <-time.After(wait):
		case <-ctx.Done():
			return fmt.Errorf("remove container %s: %w", shortID(id), last)
		}
	}
}
