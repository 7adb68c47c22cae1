package docker

import (
	"context"

	"github.com/killchain/killchain/sandbox"
	"github.com/killchain/killchain/sandbox/warm"
)

// LabelPool marks a container started for the warm pool; its killchain.run
// label is warm.PoolRun until a run takes it (Docker labels cannot change),
// so gc removes it like any run's container.
const LabelPool = "killchain.pool"

// takeWarm hands the run a started container of its study and snapshot
// from the warm pool (warm.Take), or waits for one the pool is starting.
func (b *Backend) takeWarm(ctx context.Context, env sandbox.Env, p warm.Prepared) (*Sandbox, error) {
	labels := map[string]string{LabelStudy: env.Study, LabelRun: warm.PoolRun, LabelTask: env.Task, LabelPool: "true"}
	log := b.log.With("task", env.Task, "warm", true)
	return warm.Take(ctx, b.pool, "", env, p.Image, p.Command, func(ctx context.Context) (*Sandbox, error) {
		return b.start(ctx, p.Image, labels, p.Command, warm.PoolRun+"-"+env.Task, log)
	})
}

// Taken names the run that took the sandbox from the warm pool.
func (s *Sandbox) Taken(run string) {
	s.Run = run
	s.log = s.log.With("run", run)
	s.log.Debug("warm sandbox taken")
}

// WarmSettle waits until the warm pool has no container in creation: back
// to its size, ready for the next runs. A benchmark waits for it so that
// the pool's work counts in the time it measures. Without a pool it returns
// at once.
func (b *Backend) WarmSettle(ctx context.Context) error {
	return b.pool.Settle(ctx)
}

// WarmReady counts the warm containers standing ready.
func (b *Backend) WarmReady() int {
	return b.pool.Ready()
}
