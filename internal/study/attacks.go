package study

import (
	"fmt"
	"strings"

	"github.com/hashicorp/hcl/v2"

	"github.com/killchain/killchain/internal/attacks"
	"github.com/killchain/killchain/internal/hcldiag"
	"github.com/killchain/killchain/tasks"
)

type rawAttack struct {
	Template    string  `hcl:"template"`
	Goal        *string `hcl:"goal,optional"`
	Description *string `hcl:"description,optional"`
}

// decodeAttacks decodes the study's own attack families, those of the
// study file and those of its task files (fromFiles): a template with the
// attack library's placeholders, a goal (canary by default) and a one-line
// description. The task files' families are also kept in FileAttacks.
func (d *decoder) decodeAttacks(blocks []*hcl.Block, fromFiles []fileAttackBlock) {
	text := map[*hcl.Block]fileAttackBlock{}
	for _, fb := range fromFiles {
		blocks = append(blocks, fb.block)
		text[fb.block] = fb
	}
	d.checkDuplicates("attack", blocks)
	seen := map[string]bool{}
	for _, b := range blocks {
		var raw rawAttack
		bc := d.block(b, &raw)
		if !bc.OK("template") || seen[bc.Name] {
			continue
		}
		seen[bc.Name] = true
		f := attacks.Family{Name: bc.Name, Template: raw.Template, Goal: attacks.Goal(deref(raw.Goal, string(attacks.GoalCanary))),
			Description: deref(raw.Description, "")}
		if _, ok := attacks.LookupFamily(f.Name); ok {
			d.errorf(hcldiag.LabelRange(b), "Attack shadows a built-in", "%q is a built-in attack family; give yours another name.", f.Name)
			continue
		}
		bad := false
		for _, err := range f.Check() {
			bad = true
			if strings.HasPrefix(err.Error(), "placeholder ") {
				continue // tasks.CheckPlaceholders reports it where it stands
			}
			rng := bc.Rng("template")
			if strings.HasPrefix(err.Error(), "goal") && bc.Has("goal") {
				rng = bc.Rng("goal")
			} else if strings.HasPrefix(err.Error(), "name") {
				rng = hcldiag.LabelRange(b)
			}
			d.errorf(rng, "Invalid attack", "Attack %q: %s", f.Name, sentence(err))
		}
		if bad {
			continue
		}
		d.study.Attacks = append(d.study.Attacks, f)
		if fb, ok := text[b]; ok {
			d.study.FileAttacks = append(d.study.FileAttacks, FileAttack{Family: f, File: fb.file, Text: fb.text})
		}
	}
}

// gridAttacks checks the grid's attacks: each parses, and each can be
// planted where every task of the grid plants.
func (d *decoder) gridAttacks(bc *hcldiag.Block, g *Grid, found map[int]*tasks.Task) {
	if !bc.OK("attacks") {
		return
	}
	if len(g.Attacks) == 0 {
		d.errorf(bc.Rng("attacks"), "Empty attacks", "Omit attacks to plant only the tasks' own variants; an empty list plants none.")
	}
	seen := map[string]bool{}
	for i, spec := range g.Attacks {
		a, err := attacks.Parse(spec, d.study.Attacks)
		if err != nil {
			d.errorf(bc.Elem("attacks", i), "Invalid attack", "%s", sentence(err))
			continue
		}
		if seen[a.Name()] {
			d.errorf(bc.Elem("attacks", i), "Duplicate attack", "Grid %q lists attack %q more than once.", g.Name, a.Name())
			continue
		}
		seen[a.Name()] = true
		for ti := range g.Tasks {
			t, ok := found[ti]
			if !ok || t.Reward != nil {
				continue
			}
			for _, own := range t.AttackPlacements() {
				if _, err := t.AttackVariant(a, own, ""); err != nil {
					d.errorf(bc.Elem("attacks", i), "Attack cannot be planted", "%s", sentence(err))
				}
			}
		}
	}
}

// Attack returns a parsed attack by the name a grid gives it.
func (s *Study) Attack(spec string) (attacks.Attack, error) { return attacks.Parse(spec, s.Attacks) }

// AttackVariant is the variant a planned attack run plants: the attack
// as the plan parsed it (pr.Planted), written for the run's task and first
// model, where the task's own variant pr.Placed plants.
func (s *Study) AttackVariant(t *tasks.Task, pr Run) (tasks.Variant, error) {
	if pr.Planted == nil {
		return tasks.Variant{}, fmt.Errorf("run %s plants attack %s, which its plan did not parse", pr.RunID, pr.Attack)
	}
	own, ok := t.Variant(pr.Placed)
	if !ok {
		return tasks.Variant{}, fmt.Errorf("task %s has no variant %q to place attack %s", t.Name, pr.Placed, pr.Attack)
	}
	model := pr.ModelA
	if m, ok := s.Model(pr.ModelA); ok && m.ModelName != "" {
		model = m.ModelName
	}
	if own.Injection != nil {
		su, ok := s.Tasks.Suite(pr.Suite)
		if !ok {
			return tasks.Variant{}, fmt.Errorf("run %s plants injection %s outside a known suite (%q)", pr.RunID, own.Name, pr.Suite)
		}
		return t.SuiteAttackVariant(*pr.Planted, own, su, model)
	}
	return t.AttackVariant(*pr.Planted, own, model)
}

// RunVariant is the variant a planned run plants: the attack's, or the
// task's own by name (which Env resolves).
func (s *Study) RunVariant(t *tasks.Task, pr Run) (tasks.Variant, error) {
	if pr.Attack == "" || !pr.Attacked {
		return tasks.Variant{Name: pr.Variant}, nil
	}
	return s.AttackVariant(t, pr)
}

// sentence ends an error's text with a full stop unless it ends with a
// question.
func sentence(err error) string {
	msg := err.Error()
	if strings.HasSuffix(msg, "?") || strings.HasSuffix(msg, ".") {
		return msg
	}
	return msg + "."
}
