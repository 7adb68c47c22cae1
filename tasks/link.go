package tasks

import (
	"fmt"
	"slices"
	"strings"

	"github.com/killchain/killchain/internal/hcldiag"
)

// Link joins the definitions of defs to base (the built-ins, or nil),
// checks what needed the others (a task's environment, an injection's, a
// suite's members; every expression against its environment's state) and
// returns the set, and the tasks defs define that it holds, in the order
// declared. Names are unique: tasks and injections share one namespace,
// environments and suites each have their own. A built-in task is
// replaced only by a definition with override = true, or one identical to
// it; an environment or injection declared again must be identical (a
// study folder keeps one beside each task over it); a suite declared
// again adds members. Problems go to l; a definition with errors is left
// out.
func Link(l *hcldiag.List, base *Set, defs ...*Defs) (*Set, []*Task) {
	lk := &linker{l: l, base: base, set: &Set{byName: map[string]*Task{}, envs: map[string]*Environment{},
		injections: map[string]*Injection{}, suites: map[string]*Suite{}}, seen: map[string]*Source{}, failed: map[string]bool{}}
	// What Link finds goes to l, whichever list the blocks were decoded
	// with.
	for _, df := range defs {
		for _, d := range df.users {
			d.l = l
		}
		for _, p := range df.injs {
			p.d.l = l
		}
		for _, p := range df.suites {
			p.d.l = l
		}
		for k := range df.failed {
			lk.failed[k] = true
		}
	}
	if base != nil {
		for n, t := range base.byName {
			lk.set.byName[n] = t
		}
		for n, e := range base.envs {
			lk.set.envs[n] = e
		}
		for n, in := range base.injections {
			lk.set.injections[n] = in
		}
		for n, su := range base.suites {
			lk.set.suites[n] = su
		}
	}
	for _, df := range defs {
		for _, e := range df.envs {
			lk.addEnv(e)
		}
	}
	for _, df := range defs {
		for _, p := range df.injs {
			lk.addInjection(p)
		}
	}
	var own []*Task
	for _, df := range defs {
		for _, t := range df.tasks {
			if d, user := df.users[t]; user && !lk.linkUser(t, d) {
				lk.failed["tasks of "+d.envName] = true
				lk.failed["task "+t.Name] = true
				continue
			}
			if lk.addTask(t) {
				own = append(own, t)
			}
		}
	}
	lk.variants()
	lk.addSuites(defs)
	lk.suitesOfTasks()
	lk.reachable(defs)
	// The own tasks as the set holds them (user tasks are copied with
	// their variants).
	for i, t := range own {
		own[i] = lk.set.byName[t.Name]
	}
	return lk.set, own
}

// linker carries one Link.
type linker struct {
	l    *hcldiag.List
	base *Set
	set  *Set
	// seen are the task and injection names defs declared, where.
	seen   map[string]*Source
	failed map[string]bool
}

// addEnv adds an environment unless its name is taken by another
// definition.
func (lk *linker) addEnv(e *Environment) {
	prev, ok := lk.set.envs[e.Name]
	if ok && !lk.same("environment", e.Name, e.Source, prev.Source, encodeEnvHash(e), encodeEnvHash(prev)) {
		return
	}
	if !ok || !prev.Source.Builtin {
		lk.set.envs[e.Name] = e
	}
}

// same decides a name declared twice: identical definitions are one (a
// study folder keeps an environment with each task over it); different
// ones are an error at the later.
func (lk *linker) same(kind, name string, src, prev Source, h, hPrev string) bool {
	if h == hPrev {
		return true
	}
	rng := src.Range
	if prev.Builtin {
		lk.l.Errorf(&rng, "Built-in "+kind+" shadowed", "%q is a built-in %s and this definition differs from it; give yours another name.", name, kind)
	} else {
		lk.l.Errorf(&rng, "Duplicate "+kind, "%s named %q was already declared at %s, differently.", article(kind), name, hcldiag.RangeString(prev.Range))
	}
	return false
}

// article is "A kind" or "An kind".
func article(kind string) string {
	if strings.ContainsRune("aeiou", rune(kind[0])) {
		return "An " + kind
	}
	return "A " + kind
}

// taken reports (at rng) a task or injection name another task or
// injection of defs already has, and remembers the name.
func (lk *linker) taken(kind, name string, src *Source) bool {
	if prev, ok := lk.seen[name]; ok {
		rng := src.Range
		lk.l.Errorf(&rng, "Duplicate "+kind, "A task or injection named %q was already declared at %s; tasks and injections share one namespace.", name, hcldiag.RangeString(prev.Range))
		return true
	}
	lk.seen[name] = src
	return false
}

// addInjection checks an injection against its environment and adds it.
func (lk *linker) addInjection(p *pendingInjection) {
	in := p.in
	if prev, ok := lk.set.injections[in.Name]; ok {
		// A built-in, or the same injection kept beside each task of a
		// study folder.
		lk.same("injection", in.Name, in.Source, prev.Source, injectionHash(in), injectionHash(prev))
		return
	}
	if _, ok := lk.set.byName[in.Name]; ok {
		rng := in.Source.Range
		lk.l.Errorf(&rng, "Name of a task", "%q names a task; tasks and injections share one namespace, so give the injection another name.", in.Name)
		return
	}
	if lk.taken("injection", in.Name, &in.Source) {
		return
	}
	env, ok := lk.env(p.d, p.bc, in.Environment)
	if !ok {
		return
	}
	before := errorCount(lk.l.Diags)
	p.d.checkInjection(in, env, p.bc)
	if errorCount(lk.l.Diags) == before {
		lk.set.injections[in.Name] = in
		return
	}
	lk.failed["injection "+in.Name] = true
	lk.failed["injection on "+env.Name] = true
}

// env finds the environment a block names, or reports it at the block's
// environment attribute.
func (lk *linker) env(d *decoder, bc *hcldiag.Block, name string) (*Environment, bool) {
	if e, ok := lk.set.envs[name]; ok {
		return e, true
	}
	if lk.failed["environment "+name] {
		return nil, false // its own errors say why
	}
	names := make([]string, 0, len(lk.set.envs))
	for n := range lk.set.envs {
		names = append(names, n)
	}
	slices.Sort(names)
	hint := ""
	if best := hcldiag.Closest(name, names); best != "" {
		hint = fmt.Sprintf("; did you mean %q?", best)
	}
	known := " (none is defined)"
	if len(names) > 0 {
		known = " (known: " + strings.Join(names, ", ") + ")"
	}
	d.l.Errorf(bc.Rng("environment"), "Unknown environment", "No environment %q is defined in this file, the study's other task files or the built-ins%s%s.", name, hint, known)
	return nil, false
}

// addTask adds a task unless its name is taken: by another of defs, or
// by a built-in it differs from without override = true.
func (lk *linker) addTask(t *Task) bool {
	ok := lk.claimTask(t)
	if !ok && t.Environment != nil {
		lk.failed["tasks of "+t.Environment.Name] = true
	}
	return ok
}

// claimTask adds a task unless its name is taken.
func (lk *linker) claimTask(t *Task) bool {
	if lk.taken("task", t.Name, &t.Source) {
		return false
	}
	rng := t.Source.Range
	if _, ok := lk.set.injections[t.Name]; ok {
		lk.l.Errorf(&rng, "Name of an injection", "%q names an injection; tasks and injections share one namespace, so give the task another name.", t.Name)
		return false
	}
	var b *Task
	if lk.base != nil {
		b, _ = lk.base.Get(t.Name)
	}
	switch {
	case b != nil && !t.Override && blockHash(b) != blockHash(t):
		lk.l.Errorf(&rng, "Built-in task shadowed",
			"%q is a built-in task and this definition differs from it; give the task another name, or set override = true to run this definition instead.", t.Name)
		return false
	case b == nil && t.Override:
		lk.l.Warnf(&rng, "Nothing to override", "override = true replaces a built-in task, and there is no built-in task %q.", t.Name)
	}
	lk.set.byName[t.Name] = t
	return true
}

// linkUser finds a user task's environment and checks the task against
// it.
func (lk *linker) linkUser(t *Task, d *decoder) bool {
	env, ok := lk.env(d, d.taskBlock, d.envName)
	if !ok {
		return false
	}
	before := errorCount(lk.l.Diags)
	t.Environment = env
	d.checkUser(t)
	return errorCount(lk.l.Diags) == before
}

// variants gives every task over an environment one variant per
// injection on its environment, in name order; a task is copied, so that
// a built-in one is not changed where another study uses it.
func (lk *linker) variants() {
	byEnv := map[string][]*Injection{}
	for _, n := range sortedNames(lk.set.injections) {
		in := lk.set.injections[n]
		byEnv[in.Environment] = append(byEnv[in.Environment], in)
	}
	for n, t := range lk.set.byName {
		if t.Environment == nil {
			continue
		}
		c := *t
		c.Environment = lk.set.envs[t.Environment.Name]
		c.Variants, c.suites = nil, nil
		for _, in := range byEnv[c.Environment.Name] {
			c.Variants = append(c.Variants, InjectionVariant(in))
		}
		lk.set.byName[n] = &c
	}
}

// addSuites resolves the suites of defs and adds them. A suite may be
// declared more than once with the same environment, user and attacker
// (the resolved form of each task over an environment holds the suites
// that hold it, naming that task): each declaration adds its members. A
// member list left out takes every user task or injection on the
// environment.
func (lk *linker) addSuites(defs []*Defs) {
	byName := map[string][]*pendingSuite{}
	var order []string
	for _, df := range defs {
		for _, p := range df.suites {
			if _, ok := byName[p.su.Name]; !ok {
				order = append(order, p.su.Name)
			}
			byName[p.su.Name] = append(byName[p.su.Name], p)
		}
	}
	for _, name := range order {
		ps := byName[name]
		first := ps[0]
		c := *first.su
		c.UserTasks, c.Injections = nil, nil
		prev, hasPrev := lk.set.suites[name]
		if hasPrev {
			c.Source = prev.Source
		}
		env, ok := lk.env(first.d, first.bc, c.Environment)
		if !ok {
			continue
		}
		before := errorCount(lk.l.Diags)
		all := [2]bool{}
		unknown := false
		for _, p := range ps {
			switch {
			case hasPrev && !sameSuite(p.su, prev):
				lk.differs(p, prev.Source)
				continue
			case !sameSuite(p.su, first.su):
				lk.differs(p, first.su.Source)
				continue
			}
			for which, listed := range [2][]string{p.su.UserTasks, p.su.Injections} {
				if !p.explicit[which] {
					all[which] = true
				}
				members := lk.members(p, which, listed, env)
				unknown = unknown || len(members) < len(listed)
				for _, n := range members {
					if which == 0 && !slices.Contains(c.UserTasks, n) {
						c.UserTasks = append(c.UserTasks, n)
					} else if which == 1 && !slices.Contains(c.Injections, n) {
						c.Injections = append(c.Injections, n)
					}
				}
			}
		}
		if hasPrev {
			c.UserTasks = union(c.UserTasks, prev.UserTasks)
			c.Injections = union(c.Injections, prev.Injections)
		}
		if all[0] {
			c.UserTasks = union(c.UserTasks, lk.onEnv(0, env))
		}
		if all[1] {
			c.Injections = union(c.Injections, lk.onEnv(1, env))
		}
		slices.Sort(c.UserTasks)
		slices.Sort(c.Injections)
		for which, kind := range []string{"user task", "injection"} {
			if len([2][]string{c.UserTasks, c.Injections}[which]) == 0 && !unknown && !lk.failed[[]string{"tasks of ", "injection on "}[which]+env.Name] {
				first.d.l.Errorf(first.bc.Label(), "Empty suite", "No %s names environment %q, so suite %q has none.", kind, env.Name, name)
			}
		}
		if c.Attacker == "" {
			for _, n := range c.Injections {
				if in := lk.set.injections[n]; in.Attacker == "" {
					first.d.l.Errorf(first.bc.Label(), "No attacker", "Injection %q names no attacker and suite %q gives none: set attacker in one of them ({{ATTACKER}}, and `attacker` in checks).", n, name)
					break
				}
			}
		}
		if errorCount(lk.l.Diags) == before {
			lk.set.suites[name] = &c
		}
	}
}

// sameSuite reports whether two declarations of a suite agree on all but
// their members.
func sameSuite(a, b *Suite) bool {
	return a.Environment == b.Environment && a.User == b.User && a.Attacker == b.Attacker
}

func (lk *linker) differs(p *pendingSuite, prev Source) {
	rng := p.su.Source.Range
	lk.l.Errorf(&rng, "Duplicate suite", "A suite named %q was already declared at %s with another environment, user or attacker; a suite declared again may only add members.", p.su.Name, hcldiag.RangeString(prev.Range))
}

func union(a, b []string) []string {
	for _, s := range b {
		if !slices.Contains(a, s) {
			a = append(a, s)
		}
	}
	return a
}

// onEnv lists the user tasks (which 0) or injections (1) on an
// environment, in name order.
func (lk *linker) onEnv(which int, env *Environment) []string {
	var out []string
	if which == 0 {
		for _, n := range lk.set.Names() {
			if t := lk.set.byName[n]; t.Environment != nil && t.Environment.Name == env.Name {
				out = append(out, n)
			}
		}
		return out
	}
	for _, n := range sortedNames(lk.set.injections) {
		if lk.set.injections[n].Environment == env.Name {
			out = append(out, n)
		}
	}
	return out
}

// members resolves the user tasks (which 0) or injections (1) a suite
// declaration lists: each must be on the suite's environment.
func (lk *linker) members(p *pendingSuite, which int, listed []string, env *Environment) []string {
	attr, kind := "user_tasks", "user task"
	if which == 1 {
		attr, kind = "injections", "injection"
	}
	onEnv := lk.onEnv(which, env)
	var out []string
	for i, n := range listed {
		if slices.Contains(onEnv, n) {
			out = append(out, n)
			continue
		}
		if lk.failed[[]string{"task ", "injection "}[which]+n] {
			continue // its own errors say why
		}
		hint := ""
		if best := hcldiag.Closest(n, onEnv); best != "" {
			hint = fmt.Sprintf("; did you mean %q?", best)
		}
		p.d.l.Errorf(p.bc.Elem(attr, i), "Unknown "+kind, "No %s named %q works in environment %q%s (its %ss: %s).", kind, n, env.Name, hint, kind, strings.Join(onEnv, ", "))
	}
	return out
}

// suitesOfTasks records on each user task the suites that hold it: its
// resolved form keeps them.
func (lk *linker) suitesOfTasks() {
	for _, sn := range sortedNames(lk.set.suites) {
		su := lk.set.suites[sn]
		for _, n := range su.UserTasks {
			if t, ok := lk.set.byName[n]; ok && t.Environment != nil {
				t.suites = append(t.suites, su)
			}
		}
	}
}

// reachable warns of an injection of defs whose ground truth calls a tool
// no user task on its environment offers: no agent could carry it out.
func (lk *linker) reachable(defs []*Defs) {
	for _, df := range defs {
		for _, p := range df.injs {
			in, ok := lk.set.injections[p.in.Name]
			if !ok || in != p.in {
				continue
			}
			for i, c := range in.GroundTruth {
				offered := false
				for _, t := range lk.set.byName {
					offered = offered || t.Environment != nil && t.Environment.Name == in.Environment && t.Offered(c.Tool)
				}
				if !offered && i < len(p.d.gt) && !lk.failed["tasks of "+in.Environment] {
					p.d.l.Warnf(p.d.gt[i].bc.Label(), "No agent can make this call", "No user task of environment %q offers %q to a role, so injection %q's call of it can never be carried out.", in.Environment, c.Tool, in.Name)
				}
			}
		}
	}
}

func sortedNames[T any](m map[string]T) []string {
	out := make([]string, 0, len(m))
	for n := range m {
		out = append(out, n)
	}
	slices.Sort(out)
	return out
}
