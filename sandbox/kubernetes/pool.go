package kubernetes

import (
	"context"
	"strings"

	"github.com/killchain/killchain/sandbox"
)

// PoolRun is the killchain.run label of a warm pod. Pods keep the label
// they were created with: a run that takes one is named in the logs and
// its errors, and gc finds the pod by its study like any other.
const PoolRun = "pool"

// takeWarm hands the run a running pod of its study and snapshot, the
// toolbox exec'd in it, from the warm pool, or waits for one the pool is
// starting. The pod has never been planted or seen by any run; from here
// on it is this run's and is deleted when the run closes it.
func (b *Backend) takeWarm(ctx context.Context, ns, image string, env sandbox.Env, cmd []string) (*Sandbox, error) {
	key := strings.Join(append([]string{ns, env.Study, env.Task, image}, cmd...), "\x00")
	blank := sandbox.Env{Study: env.Study, Run: PoolRun, Task: env.Task}
	s, err := b.pool.Take(ctx, key, func(ctx context.Context) (*Sandbox, error) {
		return b.start(ctx, ns, image, blank, cmd)
	})
	if err != nil {
		return nil, err
	}
	s.Run = env.Run
	s.log = s.log.With("run", env.Run)
	s.log.Debug("warm sandbox taken")
	return s, nil
}

// WarmSettle waits until the warm pool has no pod in creation (see the
// Docker backend's); without a pool it returns at once.
func (b *Backend) WarmSettle(ctx context.Context) error {
	return b.pool.Settle(ctx)
}

// WarmReady counts the warm pods standing ready.
func (b *Backend) WarmReady() int {
	return b.pool.Ready()
}
