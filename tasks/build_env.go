package tasks

import (
	"encoding/json"

	"github.com/killchain/killchain/internal/world"
)

// vectorDefault is what a vector holds where no payload is planted.
func (e *Environment) vectorDefault(name string) string {
	for _, v := range e.Vectors {
		if v.Name == name {
			return v.Default
		}
	}
	return ""
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
