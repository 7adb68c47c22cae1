package docker

import (
	"context"
	"errors"
	"fmt"
	"time"

	cerrdefs "github.com/containerd/errdefs"
	"github.com/moby/moby/client"
	"golang.org/x/sync/errgroup"
)

// GCReport lists what GC removed.
type GCReport struct {
	Containers []string `json:"containers"` // names
	Volumes    []string `json:"volumes"`
}

// GCOption narrows what GC removes.
type GCOption func(*gcConfig)

type gcConfig struct{ study string }

// GCStudy limits GC to the containers and volumes of one study.
func GCStudy(study string) GCOption { return func(c *gcConfig) { c.study = study } }

// gcRemoveTimeout bounds how long GC asks the daemon to remove one
// container.
const gcRemoveTimeout = time.Minute

// gcParallel is how many removals GC asks of the daemon at once.
const gcParallel = 8

// GC removes every container and volume labelled killchain.run, running or
// not: what a crashed or killed process left behind. Snapshot images are
// kept. Run it only when no study is running (or narrow it with GCStudy).
func GC(ctx context.Context, cli *client.Client, opts ...GCOption) (GCReport, error) {
	var cfg gcConfig
	for _, o := range opts {
		o(&cfg)
	}
	f := client.Filters{}.Add("label", LabelRun)
	if cfg.study != "" {
		f = f.Add("label", LabelStudy+"="+cfg.study)
	}
	var rep GCReport
	var errs []error
	list, err := cli.ContainerList(ctx, client.ContainerListOptions{All: true, Filters: f})
	if err != nil {
		return rep, fmt.Errorf("gc: list containers: %w", err)
	}
	// The removals run side by side, a few at a time: one container the
	// daemon cannot remove holds up only its own slot, not the rest.
	gone := make([]error, len(list.Items))
	var g errgroup.Group
	g.SetLimit(gcParallel)
	for i, c := range list.Items {
		g.Go(func() error {
			rctx, cancel := context.WithTimeout(ctx, gcRemoveTimeout)
			defer cancel()
			gone[i] = removeGone(rctx, cli, c.ID)
			return nil
		})
	}
	g.Wait()
	for i, c := range list.Items {
		name := shortID(c.ID)
		if len(c.Names) > 0 {
			name = c.Names[0]
		}
		// Only a container the daemon says is gone counts as removed.
		if gone[i] != nil {
			errs = append(errs, fmt.Errorf("gc: %s is still there: %w", name, gone[i]))
			continue
		}
		rep.Containers = append(rep.Containers, name)
	}
	vols, err := cli.VolumeList(ctx, client.VolumeListOptions{Filters: f})
	if err != nil {
		return rep, errors.Join(append(errs, fmt.Errorf("gc: list volumes: %w", err))...)
	}
	for _, v := range vols.Items {
		_, err := cli.VolumeRemove(ctx, v.Name, client.VolumeRemoveOptions{Force: true})
		if err != nil && !cerrdefs.IsNotFound(err) {
			errs = append(errs, fmt.Errorf("gc: remove volume %s: %w", v.Name, err))
			continue
		}
		rep.Volumes = append(rep.Volumes, v.Name)
	}
	return rep, errors.Join(errs...)
}
