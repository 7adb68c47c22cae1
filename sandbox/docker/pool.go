package docker

import (
	"context"
	"strings"

	"github.com/killchain/killchain/sandbox"
)

// LabelPool marks a container started for the warm pool; its killchain.run
// label is "pool" until a run takes it (Docker labels cannot change), so
// gc removes it like any run's container.
const LabelPool = "killchain.pool"

// PoolRun is the killchain.run label of a warm container.
const PoolRun = "pool"

// takeWarm hands the run a started container of its study and snapshot
// from the warm pool, or waits for one the pool is starting. The container
// has never been planted or seen by any run; from here on it is this run's
// and is removed when the run closes it.
func (b *Backend) takeWarm(ctx context.Context, env sandbox.Env, p Prepared) (*Sandbox, error) {
	key := strings.Join(append([]string{env.Study, env.Task, p.Image}, p.Command...), "\x00")
	labels := map[string]string{LabelStudy: env.Study, LabelRun: PoolRun, LabelTask: env.Task, LabelPool: "true"}
	log := b.log.With("task", env.Task, "warm", true)
	s, err := b.pool.Take(ctx, key, func(ctx context.Context) (*Sandbox, error) {
		return b.start(ctx, p.Image, labels, p.Command, PoolRun+"-"+env.Task, log)
	})
	if err != nil {
		return nil, err
	}
	s.Run = env.Run
	s.log = s.log.With("run", env.Run)
	s.log.Debug("warm sandbox taken")
	return s, nil
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
