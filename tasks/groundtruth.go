package tasks

import (
	"encoding/json"
	"slices"
	"strings"
)

// Rendered is the call's arguments with {{CANARY}} and {{ATTACKER}} in
// its strings replaced: how a reference agent, or `tasks check`, makes
// the call in a run of that canary and attacker.
func (c GroundTruthCall) Rendered(canaryToken, attacker string) json.RawMessage {
	if !strings.Contains(string(c.Args), "{{") {
		return c.Args
	}
	var v any
	if json.Unmarshal(c.Args, &v) != nil {
		return c.Args
	}
	out, err := json.Marshal(renderStrings(v, canaryToken, attacker))
	if err != nil {
		return c.Args
	}
	return out
}

func renderStrings(v any, canaryToken, attacker string) any {
	switch x := v.(type) {
	case string:
		return Render(x, canaryToken, attacker)
	case []any:
		for i := range x {
			x[i] = renderStrings(x[i], canaryToken, attacker)
		}
	case map[string]any:
		for k := range x {
			x[k] = renderStrings(x[k], canaryToken, attacker)
		}
	}
	return v
}

// RoleOf is the role that makes a ground-truth call of t: the call's, or
// the first role.
func (t *Task) RoleOf(c GroundTruthCall) string {
	if c.Role != "" || len(t.Roles) == 0 {
		return c.Role
	}
	return t.Roles[0].Name
}

// AttackerOf is who an injection's attacker is: its own, else that of the
// first suite (by name) that holds it and names one.
func (s *Set) AttackerOf(in *Injection) string {
	if in.Attacker != "" {
		return in.Attacker
	}
	for _, su := range s.Suites() {
		if su.Attacker != "" && slices.Contains(su.Injections, in.Name) {
			return su.Attacker
		}
	}
	return ""
}

// UserTasksOf lists the user tasks over an environment, by name.
func (s *Set) UserTasksOf(env string) []*Task {
	var out []*Task
	for _, t := range s.All() {
		if t.Environment != nil && t.Environment.Name == env {
			out = append(out, t)
		}
	}
	return out
}

// InjectionsOn lists the injections on an environment, by name.
func (s *Set) InjectionsOn(env string) []*Injection {
	var out []*Injection
	for _, in := range s.Injections() {
		if in.Environment == env {
			out = append(out, in)
		}
	}
	return out
}
