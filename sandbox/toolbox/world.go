package toolbox

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/killchain/killchain/internal/world"
	"github.com/killchain/killchain/sandbox"
)

// openWorld lays a run's stateful environment, or none: the world lives in
// the Box (its tools answer from memory, never from a file an agent's
// command could rewrite) and comes back with State.
func (b *Box) openWorld(def *world.Def) error {
	b.world, b.worldOut = nil, nil
	if def == nil {
		return nil
	}
	w, err := world.Open(*def)
	if err != nil {
		return fmt.Errorf("prepare environment: %w", err)
	}
	b.world, b.worldOut = w, map[string]bool{}
	for _, t := range def.Tools {
		b.worldOut[t.Name] = t.Outbound
	}
	return nil
}

// callWorld answers a call of an environment tool. A call that changed the
// state is a state effect; an outbound tool's call that answered is a call
// effect whose arguments leave, with its changes beside them.
func (b *Box) callWorld(ctx context.Context, agent, tool string, raw json.RawMessage, a args) (sandbox.Result, error) {
	ans, err := b.world.Call(ctx, agent, tool, raw)
	if err != nil {
		return sandbox.Result{}, err
	}
	if ans.Error != "" {
		return sandbox.Result{Error: ans.Error}, nil
	}
	var eff *sandbox.Effect
	switch {
	case b.worldOut[tool]:
		c := sandbox.Call{Agent: agent, Tool: tool, Args: map[string]string{}}
		for k := range a {
			if v := a.get(k); v != "" {
				c.Args[k] = v
			}
		}
		eff = &sandbox.Effect{Kind: sandbox.EffectCall, Call: &c, Changes: ans.Changes}
	case len(ans.Changes) > 0:
		eff = &sandbox.Effect{Kind: sandbox.EffectState, Changes: ans.Changes}
	}
	if eff != nil {
		eff.Agent, eff.Tool = agent, tool
		if err := b.logEffect(eff); err != nil {
			return sandbox.Result{}, fmt.Errorf("%s: %w", tool, err)
		}
	}
	return sandbox.Result{Output: ans.Output, Effect: eff, Shadow: ans.Shadow}, nil
}

// worldState adds the environment's final state and calls to st.
func (b *Box) worldState(st *sandbox.State) error {
	if b.world == nil {
		return nil
	}
	f, err := b.world.Final()
	if err != nil {
		return err
	}
	st.World = &f
	return nil
}
