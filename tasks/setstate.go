package tasks

import (
	"fmt"
	"slices"
)

// WithStateful returns a copy of the set with environments, injections and
// suites added, each replacing one of its name. It is how a loader (and a
// test) puts the stateful parts beside the tasks that name them.
func (s *Set) WithStateful(envs []*Environment, injections []*Injection, suites []*Suite) *Set {
	out := s.With()
	if out.envs == nil {
		out.envs = map[string]*Environment{}
	}
	if out.injections == nil {
		out.injections = map[string]*Injection{}
	}
	if out.suites == nil {
		out.suites = map[string]*Suite{}
	}
	for _, e := range envs {
		out.envs[e.Name] = e
	}
	for _, in := range injections {
		out.injections[in.Name] = in
	}
	for _, su := range suites {
		out.suites[su.Name] = su
	}
	return out
}

// SuiteTasks returns a suite's user tasks in order: those it names, else
// every task naming its environment, sorted by name.
func (s *Set) SuiteTasks(su *Suite) ([]*Task, error) {
	names := su.UserTasks
	if len(names) == 0 {
		for _, t := range s.All() {
			if t.Environment != nil && t.Environment.Name == su.Environment {
				names = append(names, t.Name)
			}
		}
	}
	out := make([]*Task, 0, len(names))
	for _, n := range names {
		t, ok := s.Get(n)
		if !ok {
			return nil, fmt.Errorf("suite %s: unknown user task %q", su.Name, n)
		}
		if t.Environment == nil || t.Environment.Name != su.Environment {
			return nil, fmt.Errorf("suite %s: task %s is not a user task of environment %s", su.Name, n, su.Environment)
		}
		out = append(out, t)
	}
	return out, nil
}

// SuiteInjections returns a suite's injections in order: those it names,
// else every injection naming its environment, sorted by name.
func (s *Set) SuiteInjections(su *Suite) ([]*Injection, error) {
	names := su.Injections
	if len(names) == 0 && s != nil {
		for n, in := range s.injections {
			if in.Environment == su.Environment {
				names = append(names, n)
			}
		}
		slices.Sort(names)
	}
	out := make([]*Injection, 0, len(names))
	for _, n := range names {
		in, ok := s.Injection(n)
		if !ok {
			return nil, fmt.Errorf("suite %s: unknown injection %q", su.Name, n)
		}
		if in.Environment != su.Environment {
			return nil, fmt.Errorf("suite %s: injection %s is of environment %s, not %s", su.Name, n, in.Environment, su.Environment)
		}
		out = append(out, in)
	}
	return out, nil
}

// AttackerOf is the attacker's identity of a suite's injection: its own,
// else the suite's.
func (su *Suite) AttackerOf(in *Injection) string {
	if in != nil && in.Attacker != "" {
		return in.Attacker
	}
	return su.Attacker
}
