package kubernetes

import (
	"context"

	"github.com/killchain/killchain/sandbox"
	"github.com/killchain/killchain/sandbox/warm"
)

// takeWarm hands the run a running pod of its study and snapshot, the
// toolbox exec'd in it, from the warm pool (warm.Take), or waits for one
// the pool is starting. Pods keep the labels they were created with
// (killchain.run is warm.PoolRun).
func (b *Backend) takeWarm(ctx context.Context, ns, image string, env sandbox.Env, cmd []string) (*Sandbox, error) {
	blank := sandbox.Env{Study: env.Study, Run: warm.PoolRun, Task: env.Task}
	return warm.Take(ctx, b.pool, ns, env, image, cmd, func(ctx context.Context) (*Sandbox, error) {
		return b.start(ctx, ns, image, blank, cmd)
	})
}

// Taken names the run that took the sandbox from the warm pool.
func (s *Sandbox) Taken(run string) {
	s.Run = run
	s.log = s.log.With("run", run)
	s.log.Debug("warm sandbox taken")
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
