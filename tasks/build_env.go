package tasks

import (
	"encoding/json"
	"fmt"

	"github.com/killchain/killchain/internal/world"
	"github.com/killchain/killchain/sandbox"
)

// buildWorld lays a user task's environment for one run: its state with
// each vector's placeholder filled (the run's wording where the variant
// plants, the vector's default elsewhere and in clean runs), the programs
// of its tools, and the tools as the agents are offered them. An attacked
// run of two or more roles also carries the clean state, where the world
// computes the shadow answers that tell Relayed apart.
func (t *Task) buildWorld(env *sandbox.Env, in BuildInput, written func(string) string) error {
	e := t.Environment
	planted := fillState(e.State, func(vector string) string {
		if in.Attacked {
			if _, ok := in.Variant.Wording(vector); ok {
				return written(vector)
			}
		}
		return e.vectorDefault(vector)
	})
	state, err := world.Encode(planted)
	if err != nil {
		return fmt.Errorf("encode state: %w", err)
	}
	def := &world.Def{State: state}
	if in.Attacked && len(t.Roles) >= 2 {
		if def.Clean, err = world.Encode(fillState(e.State, e.vectorDefault)); err != nil {
			return fmt.Errorf("encode clean state: %w", err)
		}
	}
	for _, tl := range e.Tools {
		def.Tools = append(def.Tools, tl.Def)
		env.Tools = append(env.Tools, sandbox.ToolDef{Name: tl.Name, Description: tl.Description, Level: tl.Level.String(),
			Parameters: tl.Parameters, Outbound: tl.Outbound, Untrusted: tl.Untrusted})
	}
	env.World = def
	return nil
}

// vectorDefault is what a vector holds where no payload is planted.
func (e *Environment) vectorDefault(name string) string {
	for _, v := range e.Vectors {
		if v.Name == name {
			return v.Default
		}
	}
	return ""
}

// fillState is a copy of a state with every string's placeholders
// filled; the state itself is not changed.
func fillState(v any, wording func(string) string) any {
	switch x := v.(type) {
	case string:
		return fill(x, wording)
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = fillState(e, wording)
		}
		return out
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = fillState(e, wording)
		}
		return out
	}
	return v
}

// attacker is who {{ATTACKER}} names in a run's payload: a user task's
// injection's attacker, else the suite's (BuildInput.Attacker); a
// stateless task's attack address.
func (t *Task) attacker(in BuildInput) string {
	if t.Environment == nil {
		return t.Attack.Address
	}
	if inj := in.Variant.Injection; inj != nil && inj.Attacker != "" {
		return inj.Attacker
	}
	return in.Attacker
}

// StateWith is the environment's state with each vector's placeholder
// replaced by what wording returns for it, as JSON: `tasks check` plants
// a marker per vector to see which vectors a ground truth reads.
func (e *Environment) StateWith(wording func(vector string) string) (json.RawMessage, error) {
	return world.Encode(fillState(e.State, wording))
}
