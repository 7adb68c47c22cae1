package study

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"strings"

	"github.com/killchain/killchain/internal/attacks"
	"github.com/killchain/killchain/internal/vocab"
	"github.com/killchain/killchain/tasks"
)

// Run is one planned run: one repeat of one cell.
type Run struct {
	Grid    string
	Batch   string
	Task    string
	Variant string // CleanVariant ("none") for runs without payload
	// Attack is the attack-library attack the run plants ("" when it
	// plants the task's own variant); Placed is then the task's own
	// variant whose placements it takes.
	Attack, Placed string
	Surface        string // the variant's surface; a clean run's is the task's first variant's
	Mode           vocab.Mode
	Condition      string
	Attacked       bool // the condition plants a payload
	Defense        string
	ModelA         string // the single agent, or the writer of a relay
	ModelB         string // the reader of a relay; "" for single-agent tasks
	Repeat         int    // 0-based
	Cell           string // stable key of the cell, see CellKey
	RunID          string // <task>-<8 hex>, unique in the study and stable across resume
	// Planted is the attack-library attack the run plants, parsed once:
	// by Plan from the grid's spec, or as the attacker proposed it for a
	// round after 0 (which no name of the study parses to). It is nil
	// when the run plants the task's own variant, and for a round's run
	// no payload exists for.
	Planted *attacks.Attack
	// Attacker names the grid's attacker on the attacked runs of its
	// attacks (round 0) and of the rounds it proposes ("" otherwise);
	// Round is the run's round, Payload the id of the payload it plants
	// and Parent the payload that one was derived from.
	Attacker        string
	Round           int
	Payload, Parent string
	// Suite is the suite a run of a suite grid belongs to, and Injection
	// the injection task it plants ("" for its user task's clean control
	// and outside suites).
	Suite, Injection string
}

// CellKey is the stable key of a cell:
// grid/task/variant/models/condition/defense, where models is "a" for a
// single agent and "writer→reader" for a relay.
func CellKey(grid, task, variant, modelA, modelB, condition, defense string) string {
	return strings.Join([]string{grid, task, variant, pairLabel(modelA, modelB), condition, defense}, "/")
}

// pairLabel renders a model or a writer→reader pair.
func pairLabel(a, b string) string {
	if b == "" {
		return a
	}
	return a + "→" + b
}

// AttackName is what runs.jsonl records as the run's attack: the attack
// library's name for it, or the task's own variant ("none" for a clean
// run).
func (r Run) AttackName() string {
	if r.Attack != "" {
		return r.Attack
	}
	return r.Variant
}

// Models renders the run's model or writer→reader pair.
func (r Run) Models() string { return pairLabel(r.ModelA, r.ModelB) }

// RunID derives a run id from the study's name and seed, the cell key and
// the repeat; the same plan gives the same ids on every resume.
func RunID(study string, seed int64, task, cell string, repeat int) string {
	sum := sha256.Sum256(fmt.Appendf(nil, "%s\x00%d\x00%s\x00%d", study, seed, cell, repeat))
	return task + "-" + hex.EncodeToString(sum[:4])
}

// Plan expands the grids into runs in a deterministic order: for each
// grid, task, variant, model or pair, condition, defense and repeat; then
// the grid's suites, user task by user task (suiteplan.go).
// Under a condition without payload the variants collapse into one cell
// of variant "none", which comes before the task's attacked variants.
func (s *Study) Plan() ([]Run, error) {
	var runs []Run
	ids := map[string]string{}
	for _, g := range s.Grids {
		var cells []Run
		for _, name := range g.Tasks {
			t, ok := s.Tasks.Get(name)
			if !ok {
				return nil, fmt.Errorf("plan grid %s: unknown task %q", g.Name, name)
			}
			tc, err := s.taskCells(g, t)
			if err != nil {
				return nil, fmt.Errorf("plan grid %s: %w", g.Name, err)
			}
			cells = append(cells, tc...)
		}
		for _, name := range g.Suites {
			sc, err := s.suiteCells(g, name)
			if err != nil {
				return nil, fmt.Errorf("plan grid %s: %w", g.Name, err)
			}
			cells = append(cells, sc...)
		}
		for _, c := range cells {
			for rep := 0; rep < g.Repeats; rep++ {
				r := c
				r.Repeat = rep
				r.RunID = RunID(s.Name, s.Seed, c.Task, c.Cell, rep)
				if prev, dup := ids[r.RunID]; dup {
					return nil, fmt.Errorf("plan: run id %s of %s repeat %d collides with %s", r.RunID, c.Cell, rep, prev)
				}
				ids[r.RunID] = fmt.Sprintf("%s repeat %d", c.Cell, rep)
				runs = append(runs, r)
			}
		}
	}
	return runs, nil
}

// splitConditions parts a grid's conditions into the clean ones and
// those that plant a payload.
func (s *Study) splitConditions(g *Grid) (clean, attacked []*Condition, err error) {
	for _, name := range g.Conditions {
		c, ok := s.Condition(name)
		if !ok {
			return nil, nil, fmt.Errorf("unknown condition %q", name)
		}
		if c.Payload {
			attacked = append(attacked, c)
		} else {
			clean = append(clean, c)
		}
	}
	return clean, attacked, nil
}

// taskCells lists one grid's cells for one task, as runs of repeat 0.
func (s *Study) taskCells(g *Grid, t *tasks.Task) ([]Run, error) {
	clean, attacked, err := s.splitConditions(g)
	if err != nil {
		return nil, err
	}
	variants := g.Variants
	if variants == nil && (g.Attacks == nil || t.Reward != nil) {
		variants = t.VariantNames()
	}
	for _, v := range variants {
		if _, ok := t.Variant(v); !ok {
			return nil, fmt.Errorf("task %s has no variant %q", t.Name, v)
		}
	}
	var slots []slot
	if len(clean) > 0 {
		slots = append(slots, slot{variant: CleanVariant, surface: t.Surface(CleanVariant), conds: clean})
	}
	if len(attacked) > 0 {
		for _, v := range variants {
			slots = append(slots, slot{variant: v, surface: t.Surface(v), conds: attacked})
		}
		if t.Reward == nil {
			for _, spec := range g.Attacks {
				a, err := s.Attack(spec)
				if err != nil {
					return nil, err
				}
				for _, own := range t.AttackPlacements() {
					slots = append(slots, slot{variant: t.AttackVariantName(a.Name(), own), attack: a.Name(), placed: own.Name,
						planted: &a, surface: own.Surface, conds: attacked})
				}
			}
		}
	}

	return expand(g, t, slots), nil
}

// slot is one variant of a task a grid plans, under the conditions that
// plant it (or, for its clean control, none).
type slot struct {
	variant        string
	attack, placed string
	planted        *attacks.Attack
	surface        string
	conds          []*Condition
	suite, inj     string
}

// expand crosses a task's slots with the grid's models or pairs and
// defenses: its cells, as runs of repeat 0.
func expand(g *Grid, t *tasks.Task, slots []slot) []Run {
	var cells []Run
	for _, sl := range slots {
		for _, mp := range gridAgents(g, t) {
			for _, c := range sl.conds {
				for _, def := range g.Defenses {
					adaptive := g.Attacker != "" && sl.attack != "" && c.Payload
					cells = append(cells, Run{
						Grid: g.Name, Batch: g.Batch, Task: t.Name, Variant: sl.variant, Surface: sl.surface,
						Attack: sl.attack, Placed: sl.placed, Planted: sl.planted,
						Attacker: pick(adaptive, g.Attacker), Payload: pick(adaptive, sl.attack),
						Mode: t.Mode, Condition: c.Name, Attacked: c.Payload, Defense: def,
						ModelA: mp[0], ModelB: mp[1], Suite: sl.suite, Injection: pick(c.Payload, sl.inj),
						Cell: CellKey(g.Name, t.Name, sl.variant, mp[0], mp[1], c.Name, def),
					})
				}
			}
		}
	}
	return cells
}

// gridAgents lists the model (single-agent tasks, [m, ""]) or the
// writer/reader pairs (relay tasks: each model with itself, then the pairs).
func gridAgents(g *Grid, t *tasks.Task) [][2]string {
	var out [][2]string
	if !isRelay(t.Mode) {
		for _, m := range g.Models {
			out = append(out, [2]string{m, ""})
		}
		return out
	}
	for _, m := range g.Models {
		out = append(out, [2]string{m, m})
	}
	return append(out, g.Pairs...)
}

// PlanHash hashes the ordered run ids and cells and the definition of
// every task they run (tasks.Task.Hash); a resume refuses to continue when
// the plan's hash differs from the one it started with, so a changed task
// is never resumed into runs of the old one.
func (s *Study) PlanHash(runs []Run) string {
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00%d\n", s.Name, s.Seed)
	for _, r := range runs {
		fmt.Fprintf(h, "%s\x00%s\x00%d\n", r.RunID, r.Cell, r.Repeat)
	}
	for _, t := range s.PlanTasks(runs) {
		fmt.Fprintf(h, "task\x00%s\x00%s\n", t.Name, t.Hash())
	}
	// The wording of every attack the runs plant: a study's own family
	// edited between a run and its resume changes the plan.
	seen := map[string]bool{}
	for _, r := range runs {
		if r.Planted == nil || seen[r.Attack] {
			continue
		}
		seen[r.Attack] = true
		a := r.Planted
		fmt.Fprintf(h, "attack\x00%s\x00%s\x00%s\n", a.Name(), a.Family.Goal, a.Family.Template)
	}
	s.hashSuites(h, runs)
	s.hashAttackers(h)
	return hex.EncodeToString(h.Sum(nil))
}

// PlanTasks returns the tasks runs use, sorted by name.
func (s *Study) PlanTasks(runs []Run) []*tasks.Task {
	seen := map[string]bool{}
	var out []*tasks.Task
	for _, r := range runs {
		if seen[r.Task] {
			continue
		}
		seen[r.Task] = true
		if t, ok := s.Tasks.Get(r.Task); ok {
			out = append(out, t)
		}
	}
	slices.SortFunc(out, func(a, b *tasks.Task) int { return strings.Compare(a.Name, b.Name) })
	return out
}
