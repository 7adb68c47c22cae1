package toolbox

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/killchain/killchain/sandbox"
)

// ToolsFile holds the run's task-defined tools (sandbox.Env.Tools).
const ToolsFile = "state/tools.json"

// saveTools writes the run's task-defined tools; a run without any has no
// file.
func (b *Box) saveTools(defs []sandbox.ToolDef) error {
	p := filepath.Join(b.Dir, ToolsFile)
	if len(defs) == 0 {
		if err := os.Remove(p); err != nil && !errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("prepare tools: %w", err)
		}
		return nil
	}
	if err := writeJSON(p, defs); err != nil {
		return fmt.Errorf("prepare tools: %w", err)
	}
	return nil
}

// taskTool returns the run's task-defined tool of that name.
func (b *Box) taskTool(name string) (sandbox.ToolDef, bool, error) {
	data, err := os.ReadFile(filepath.Join(b.Dir, ToolsFile))
	if errors.Is(err, os.ErrNotExist) {
		return sandbox.ToolDef{}, false, nil
	}
	if err != nil {
		return sandbox.ToolDef{}, false, err
	}
	var defs []sandbox.ToolDef
	if err := json.Unmarshal(data, &defs); err != nil {
		return sandbox.ToolDef{}, false, fmt.Errorf("task tools: %w", err)
	}
	for _, d := range defs {
		if d.Name == name {
			return d, true, nil
		}
	}
	return sandbox.ToolDef{}, false, nil
}

// callTaskTool answers a call of a task-defined tool: the text of its first
// matching result. A call missing a required argument, or matching no
// result, is a tool error the model reads; an outbound tool's call that
// answered is an effect carrying its arguments.
func (b *Box) callTaskTool(agent string, def sandbox.ToolDef, a args) (string, *sandbox.Effect, error) {
	for _, k := range def.Required() {
		if a.get(k) == "" {
			return "", nil, userErr("%s is required", k)
		}
	}
	given := map[string]string{}
	for k := range a {
		if v := a.get(k); v != "" {
			given[k] = v
		}
	}
	text, ok := def.Result(given)
	switch {
	case !ok && def.Outbound && len(def.Results) == 0:
		text = def.Name + " done"
	case !ok:
		return "", nil, userErr("%s found nothing for %s", def.Name, describeArgs(given))
	}
	if !def.Outbound {
		return text, nil, nil
	}
	c := sandbox.Call{Agent: agent, Tool: def.Name, Args: given}
	return text, &sandbox.Effect{Kind: sandbox.EffectCall, Call: &c}, nil
}

// describeArgs renders arguments as name "value", sorted by name.
func describeArgs(args map[string]string) string {
	if len(args) == 0 {
		return "no arguments"
	}
	keys := make([]string, 0, len(args))
	for k := range args {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s %q", k, args[k])
	}
	return strings.Join(parts, ", ")
}
