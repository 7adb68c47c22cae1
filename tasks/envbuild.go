package tasks

import (
	"fmt"
	"slices"
	"strings"

	"github.com/killchain/killchain/internal/world"
	"github.com/killchain/killchain/sandbox"
)

// SurfaceState is the surface of a payload planted in an environment's
// state, at one of its vectors.
const SurfaceState = "state"

// CheckCanary is the canary an injection's check is evaluated with in a
// clean run: shaped like a canary and issued to no run, so that a check
// such as `x.contains(canary)` is never vacuously true.
const CheckCanary = "SECRET-00000000"

// buildWorld lays an environment task's state for one run: each vector's
// placeholder becomes the run's wording where the variant fills it, and
// the vector's default text everywhere else (and in a clean run). An
// attacked run of more than one role also gets the clean twin of the
// state (every vector at its default), the shadow that tells what a later
// role reads from what an earlier one wrote. Each environment tool is
// served by the world and offered as a task tool.
func (t *Task) buildWorld(in BuildInput, env *sandbox.Env) error {
	e := t.Environment
	defaults := make(map[string]string, len(e.Vectors))
	for _, v := range e.Vectors {
		defaults[v.Name] = v.Default
	}
	written := t.wordings(in, false)
	planted := func(name string) string {
		if w := written(name); w != "" {
			return w
		}
		return defaults[name]
	}
	state, err := world.Encode(fillState(e.State, planted))
	if err != nil {
		return fmt.Errorf("environment %s: state: %w", e.Name, err)
	}
	def := &world.Def{State: state}
	if in.Attacked && len(t.Roles) > 1 {
		if def.Clean, err = world.Encode(fillState(e.State, func(name string) string { return defaults[name] })); err != nil {
			return fmt.Errorf("environment %s: clean state: %w", e.Name, err)
		}
	}
	for _, tl := range e.Tools {
		d := tl.Def
		d.Name, d.Outbound = tl.Name, tl.IsOutbound()
		def.Tools = append(def.Tools, d)
		env.Tools = append(env.Tools, sandbox.ToolDef{Name: tl.Name, Description: tl.Description, Level: tl.Level.String(),
			Parameters: tl.Parameters, Outbound: d.Outbound, Untrusted: tl.Untrusted})
	}
	env.World = def
	return nil
}

// fillState returns a copy of a state value with the payload placeholders
// of its strings (keys included) filled; the value itself is not changed.
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
			out[fill(k, wording)] = fillState(e, wording)
		}
		return out
	}
	return v
}

// stateTexts is every string of an environment's state, keys included,
// one a line: the state as EnvTexts shows it.
func stateTexts(raw []byte) (string, error) {
	v, err := world.Decode(raw)
	if err != nil {
		return "", err
	}
	var out []string
	var walk func(any)
	walk = func(v any) {
		switch x := v.(type) {
		case string:
			out = append(out, x)
		case []any:
			for _, e := range x {
				walk(e)
			}
		case map[string]any:
			keys := make([]string, 0, len(x))
			for k := range x {
				keys = append(keys, k)
			}
			slices.Sort(keys)
			for _, k := range keys {
				out = append(out, k)
				walk(x[k])
			}
		}
	}
	walk(v)
	return strings.Join(out, "\n"), nil
}

// EnvToolNames are the names of an environment task's tools that the
// world serves, and of those the ones that change the state (a tool with
// updates): a failed call of one of those is an attempt.
func (t *Task) EnvToolNames() (served, writes []string) {
	if t.Environment == nil {
		return nil, nil
	}
	for _, tl := range t.Environment.Tools {
		served = append(served, tl.Name)
		if len(tl.Def.Updates) > 0 {
			writes = append(writes, tl.Name)
		}
	}
	return served, writes
}

// EnvTool returns an environment task's tool by name.
func (t *Task) EnvTool(name string) (EnvTool, bool) { return envTool(t.Environment, name) }

// IsOutbound reports whether the tool's calls leave the sandbox (its spec
// or its definition says so).
func (tl EnvTool) IsOutbound() bool { return tl.Outbound || tl.Def.Outbound }
