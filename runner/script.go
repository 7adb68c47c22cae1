package runner

import (
	"encoding/json"
	"fmt"

	"github.com/killchain/killchain/internal/agent"
	"github.com/killchain/killchain/internal/world"
	"github.com/killchain/killchain/tasks"
)

// scripts are the ground truth handed to each role of a run over a
// stateful environment (agent.Script), by role name: the role's user-task
// calls, and in an attacked run the injection's calls rendered with the
// run's canary and attacker. Nil for a task without an environment.
func scripts(t *tasks.Task, in *tasks.Injection, canaryToken, attacker string) (map[string]*agent.Script, error) {
	if t.Environment == nil || len(t.Roles) == 0 {
		return nil, nil
	}
	free := map[string][]string{}
	for _, tl := range t.Environment.Tools {
		if len(tl.FreeText) > 0 {
			free[tl.Name] = tl.FreeText
		}
	}
	var inj []agent.ScriptCall
	if in != nil {
		for _, c := range in.GroundTruth {
			args, err := renderArgs(c.Args, canaryToken, attacker)
			if err != nil {
				return nil, fmt.Errorf("injection %s: ground truth %s: %w", in.Name, c.Tool, err)
			}
			inj = append(inj, agent.ScriptCall{Tool: c.Tool, Args: args})
		}
	}
	out := map[string]*agent.Script{}
	for _, r := range t.Roles {
		out[r.Name] = &agent.Script{Injection: inj, FreeText: free, Canary: canaryToken}
	}
	for _, c := range t.GroundTruth {
		role := c.Role
		if role == "" {
			role = t.Roles[0].Name
		}
		sc, ok := out[role]
		if !ok {
			return nil, fmt.Errorf("ground truth call %s names role %q, which task %s has not", c.Tool, role, t.Name)
		}
		args, err := renderArgs(c.Args, canaryToken, attacker)
		if err != nil {
			return nil, fmt.Errorf("ground truth %s: %w", c.Tool, err)
		}
		sc.Task = append(sc.Task, agent.ScriptCall{Tool: c.Tool, Args: args})
	}
	return out, nil
}

// renderArgs fills {{CANARY}} and {{ATTACKER}} in every string of a
// ground-truth call's arguments.
func renderArgs(raw json.RawMessage, canaryToken, attacker string) (json.RawMessage, error) {
	if len(raw) == 0 {
		return json.RawMessage("{}"), nil
	}
	v, err := world.Decode(raw)
	if err != nil {
		return nil, err
	}
	return world.Encode(renderValue(v, canaryToken, attacker))
}

func renderValue(v any, canaryToken, attacker string) any {
	switch x := v.(type) {
	case string:
		return tasks.Render(x, canaryToken, attacker)
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = renderValue(e, canaryToken, attacker)
		}
		return out
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[tasks.Render(k, canaryToken, attacker)] = renderValue(e, canaryToken, attacker)
		}
		return out
	}
	return v
}
