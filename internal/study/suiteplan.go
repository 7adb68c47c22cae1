package study

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"hash"
	"slices"

	"github.com/killchain/killchain/tasks"
)

// DefaultSuiteAttack writes the payload of an injection without wording
// of its own, in a suite grid that names no attacks.
const DefaultSuiteAttack = "important_message"

// suiteCells lists one grid's cells over one suite, as runs of repeat 0:
// for each user task, its clean control, then each injection crossed with
// each attack (the grid's attacks; without them, the injection's own
// wording, else DefaultSuiteAttack).
func (s *Study) suiteCells(g *Grid, name string) ([]Run, error) {
	su, ok := s.Tasks.Suite(name)
	if !ok {
		return nil, fmt.Errorf("unknown suite %q", name)
	}
	userTasks, err := s.Tasks.SuiteTasks(su)
	if err != nil {
		return nil, err
	}
	injections, err := s.Tasks.SuiteInjections(su)
	if err != nil {
		return nil, err
	}
	clean, attacked, err := s.splitConditions(g)
	if err != nil {
		return nil, err
	}
	var cells []Run
	for _, t := range userTasks {
		if g.UserTasks != nil && !slices.Contains(g.UserTasks, t.Name) {
			continue
		}
		var slots []slot
		if len(clean) > 0 {
			slots = append(slots, slot{variant: CleanVariant, surface: tasks.SurfaceState, conds: clean, suite: su.Name})
		}
		for _, in := range injections {
			if len(attacked) == 0 || g.Injections != nil && !slices.Contains(g.Injections, in.Name) {
				continue
			}
			own, ok := t.Variant(in.Name)
			if !ok || own.Injection == nil {
				return nil, fmt.Errorf("user task %s has no variant for injection %s", t.Name, in.Name)
			}
			specs := g.Attacks
			if specs == nil {
				if in.Payload != "" {
					slots = append(slots, slot{variant: in.Name, surface: own.Surface, conds: attacked, suite: su.Name, inj: in.Name})
					continue
				}
				specs = []string{DefaultSuiteAttack}
			}
			for _, spec := range specs {
				a, err := s.Attack(spec)
				if err != nil {
					return nil, err
				}
				slots = append(slots, slot{variant: tasks.SuiteVariantName(a.Name(), in.Name), attack: a.Name(), placed: in.Name,
					planted: &a, surface: own.Surface, conds: attacked, suite: su.Name, inj: in.Name})
			}
		}
		cells = append(cells, expand(g, t, slots)...)
	}
	return cells, nil
}

// hashSuites adds to a plan's hash the definition of every suite its runs
// belong to: the suite, its environment (state, vectors, tools), its
// injections and the ground truth and goal of its user tasks, so that a
// suite edited between a run and its resume changes the plan.
func (s *Study) hashSuites(h hash.Hash, runs []Run) {
	seen := map[string]bool{}
	for _, r := range runs {
		if r.Suite == "" || seen[r.Suite] {
			continue
		}
		seen[r.Suite] = true
		su, ok := s.Tasks.Suite(r.Suite)
		if !ok {
			continue
		}
		fmt.Fprintf(h, "suite\x00%s\x00%s\n", su.Name, SuiteHash(s.Tasks, su))
	}
}

// SuiteHash is the sha256 of a suite's definition as it runs: the suite,
// its environment, its injections, and its user tasks' goals and ground
// truths (the rest of a user task is in its own hash).
func SuiteHash(set *tasks.Set, su *tasks.Suite) string {
	type check struct{ Source string }
	type envTool struct {
		Spec     tasks.Tool
		Def      any
		FreeText []string
	}
	def := struct {
		Suite      tasks.Suite
		Env        any
		Injections []any
		UserTasks  []any
	}{Suite: *su}
	def.Suite.Source = tasks.Source{}
	if env, ok := set.Environment(su.Environment); ok {
		var tools []envTool
		for _, tl := range env.Tools {
			tools = append(tools, envTool{tl.Tool, tl.Def, tl.FreeText})
		}
		def.Env = struct {
			Name    string
			State   any
			Vectors []tasks.Vector
			Tools   []envTool
		}{env.Name, env.State, env.Vectors, tools}
	}
	if ins, err := set.SuiteInjections(su); err == nil {
		for _, in := range ins {
			c := *in
			c.Source, c.Check = tasks.Source{}, tasks.Check{}
			def.Injections = append(def.Injections, struct {
				Injection tasks.Injection
				Check     check
			}{c, check{in.Check.Source}})
		}
	}
	if ts, err := set.SuiteTasks(su); err == nil {
		for _, t := range ts {
			goal := ""
			if t.Goal.Check != nil {
				goal = t.Goal.Check.Source
			}
			def.UserTasks = append(def.UserTasks, struct {
				Name, Goal  string
				GroundTruth []tasks.GroundTruthCall
				Helpful     bool
			}{t.Name, goal, t.GroundTruth, t.Helpful})
		}
	}
	raw, _ := json.Marshal(def)
	sum := sha256.Sum256(raw)
	return hex.EncodeToString(sum[:])
}
