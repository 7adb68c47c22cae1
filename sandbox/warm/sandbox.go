package warm

import (
	"context"
	"errors"
	"strings"

	"github.com/killchain/killchain/sandbox"
	"github.com/killchain/killchain/sandbox/wire"
)

// Paths inside a sandbox, the same in a container and in a pod: the images
// package lays them out, and both backends start the toolbox with them.
const (
	StateDir    = "/work"     // the writable state folder (in memory)
	PristineDir = "/snapshot" // the task's pristine state, read-only
	ToolboxPath = "/toolbox"  // the in-sandbox binary
	SandboxUser = "65534:65534"
)

// Errors a sandbox reports when it fails; the run is then a sandbox error,
// never an outcome. They come wrapped with the container or pod and the
// detail.
var (
	ErrOOMKilled = errors.New("sandbox container was killed by the out-of-memory killer")
	ErrExited    = errors.New("sandbox container exited")
)

// Prepared is what a run's sandbox starts from: its task's snapshot image,
// the toolbox command line for that image, and what the run's environment
// adds to the snapshot. The Docker backend makes it (building the snapshot
// once); Docker containers and Kubernetes pods start from it.
type Prepared struct {
	Image   string   // snapshot image reference, killchain/snapshot:<task>-<hash>
	ImageID string   // its image ID
	Base    string   // images name of the image the snapshot is built on
	Command []string // toolbox argv, /toolbox serve …
	Plant   sandbox.Env
	Remove  []string // fixture paths the run lacks
}

// Request is the prepare request that plants the run's environment.
func (p Prepared) Request() wire.Request {
	plant := p.Plant
	return wire.Request{Op: wire.OpPrepare, Env: &plant, Remove: p.Remove}
}

// PoolRun is the run a warm sandbox is made for (its killchain.run label):
// a sandbox keeps the labels it was created with, so a run that takes one
// is named in the logs and errors of its sandbox, and gc finds it by its
// study like any other.
const PoolRun = "pool"

// Taker is a backend's sandbox as its pool holds it: Taken tells it the run
// that took it (for its requests and its log lines), since nothing of any
// run is in it before.
type Taker interface {
	Taken(run string)
}

// Take hands the run of env a warm sandbox of its study and snapshot (image
// and toolbox command line, within scope: the Kubernetes namespace, "" on
// Docker), or waits for one the pool is starting with create. The sandbox
// has never been planted or seen by any run; from here on it is this run's,
// which closes it like any sandbox it opened.
func Take[T Taker](ctx context.Context, p *Pool[T], scope string, env sandbox.Env, image string, cmd []string, create Create[T]) (T, error) {
	key := strings.Join(append([]string{scope, env.Study, env.Task, image}, cmd...), "\x00")
	s, err := p.Take(ctx, key, create)
	if err != nil {
		return s, err
	}
	s.Taken(env.Run)
	return s, nil
}
