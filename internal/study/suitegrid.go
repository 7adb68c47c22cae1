package study

import (
	"slices"
	"strings"

	"github.com/killchain/killchain/internal/attacks"
	"github.com/killchain/killchain/internal/hcldiag"
	"github.com/killchain/killchain/tasks"
)

// gridSuites checks a grid's suites, its user_tasks and injections subsets
// and that each of its attacks can write a suite's payload (a family with
// a suite form, see attacks.Family.SuiteForm), each problem at its
// element. It returns the user tasks the grid plans over its suites.
func (d *decoder) gridSuites(bc *hcldiag.Block, g *Grid) []*tasks.Task {
	if !bc.Has("suites") {
		for _, attr := range []string{"user_tasks", "injections"} {
			if bc.Has(attr) {
				d.errorf(bc.Rng(attr), "Subset without suites", "%s keeps some of a suite's own; grid %q names no suites.", attr, g.Name)
			}
		}
		return nil
	}
	if !bc.OK("suites") {
		return nil
	}
	if len(g.Suites) == 0 {
		d.errorf(bc.Rng("suites"), "Empty suites", "Omit suites to plan only tasks; an empty list plans none.")
	}
	if bc.Has("attacker") {
		d.errorf(bc.Rng("attacker"), "Adaptive attacker over suites", "Grid %q names suites: an adaptive attacker runs on tasks only; plant its suites' attacks in a grid of their own.", g.Name)
	}
	var userTasks []*tasks.Task
	var injections []*tasks.Injection
	seen := map[string]bool{}
	for i, name := range g.Suites {
		if seen[name] {
			d.errorf(bc.Elem("suites", i), "Duplicate suite", "Grid %q lists suite %q more than once.", g.Name, name)
			continue
		}
		seen[name] = true
		su, ok := d.study.Tasks.Suite(name)
		if !ok {
			d.errorf(bc.Elem("suites", i), "Unknown suite", "%q is not a suite%s.", name, known(name, suiteNames(d.study.Tasks)))
			continue
		}
		ts, err := d.study.Tasks.SuiteTasks(su)
		if err != nil {
			d.errorf(bc.Elem("suites", i), "Invalid suite", "%s", sentence(err))
			continue
		}
		ins, err := d.study.Tasks.SuiteInjections(su)
		if err != nil {
			d.errorf(bc.Elem("suites", i), "Invalid suite", "%s", sentence(err))
			continue
		}
		userTasks, injections = append(userTasks, ts...), append(injections, ins...)
	}
	taskNames := make([]string, len(userTasks))
	for i, t := range userTasks {
		taskNames[i] = t.Name
	}
	injNames := make([]string, len(injections))
	for i, in := range injections {
		injNames[i] = in.Name
	}
	d.gridSubset(bc, g, "user_tasks", "user task", g.UserTasks, taskNames)
	d.gridSubset(bc, g, "injections", "injection", g.Injections, injNames)
	d.gridSuiteAttacks(bc, g)
	if g.UserTasks == nil {
		return userTasks
	}
	return slices.DeleteFunc(userTasks, func(t *tasks.Task) bool { return !slices.Contains(g.UserTasks, t.Name) })
}

// gridSubset checks a list that keeps some of the suites' user tasks or
// injections.
func (d *decoder) gridSubset(bc *hcldiag.Block, g *Grid, attr, what string, names, valid []string) {
	if !bc.OK(attr) {
		return
	}
	if len(names) == 0 {
		d.errorf(bc.Rng(attr), "Empty "+attr, "Omit %s to plan every %s of the grid's suites; an empty list plans none.", attr, what)
	}
	seen := map[string]bool{}
	for i, n := range names {
		switch {
		case seen[n]:
			d.errorf(bc.Elem(attr, i), "Duplicate "+what, "Grid %q lists %s %q more than once.", g.Name, what, n)
		case !slices.Contains(valid, n):
			d.errorf(bc.Elem(attr, i), "Unknown "+what, "%q is not a %s of the grid's suites (%s)%s.", n, what, strings.Join(g.Suites, ", "), known(n, valid))
		}
		seen[n] = true
	}
}

// gridSuiteAttacks refuses, at its element, an attack that cannot write a
// suite's payload: a family without a suite form, or an encoding that
// needs a web page or two channels.
func (d *decoder) gridSuiteAttacks(bc *hcldiag.Block, g *Grid) {
	if !bc.OK("attacks") {
		return
	}
	for i, spec := range g.Attacks {
		a, err := attacks.Parse(spec, d.study.Attacks)
		if err != nil {
			continue // gridAttacks reported it
		}
		if _, ok := a.Family.SuiteForm(); !ok {
			d.errorf(bc.Elem("attacks", i), "Attack without a suite form",
				"Grid %q plans suites, and family %q cannot write a suite's payload: its template holds no %s (the injection task's goal in one sentence). Add %s to the template, or plant the family in a grid of tasks.",
				g.Name, a.Family.Name, attacks.InjectionGoal, attacks.InjectionGoal)
		}
		if a.Markup() || a.Split() {
			d.errorf(bc.Elem("attacks", i), "Attack cannot be planted",
				"Grid %q plans suites: an environment's state is no web page and each vector is one channel, so %s cannot be planted there.", g.Name, a.Name())
		}
	}
}

func suiteNames(set *tasks.Set) []string {
	var out []string
	for _, su := range set.Suites() {
		out = append(out, su.Name)
	}
	return out
}
