package study

import (
	"slices"
	"strings"

	"github.com/hashicorp/hcl/v2"

	"github.com/killchain/killchain/internal/defense/kinds"
	"github.com/killchain/killchain/internal/hcldiag"
	"github.com/killchain/killchain/internal/vocab"
	"github.com/killchain/killchain/tasks"
)

// isRelay reports whether a mode runs a writer and a reader (or, in a
// pipeline, later roles): model_a for the first, model_b for the others.
func isRelay(m vocab.Mode) bool {
	return m == vocab.MemoryRelay || m == vocab.DelegationRelay || m == vocab.Pipeline
}

// decodeGrid decodes one grid block and checks every name it uses.
func (d *decoder) decodeGrid(b *hcl.Block) {
	var raw rawGrid
	bc := d.block(b, &raw)
	g := &Grid{
		Name:       bc.Name,
		Batch:      deref(raw.Batch, bc.Name),
		Tasks:      raw.Tasks,
		Variants:   raw.Variants,
		Models:     raw.Models,
		Conditions: raw.Conditions,
		Defenses:   raw.Defenses,
		Repeats:    deref(raw.Repeats, DefaultRepeats),
		Attacks:    raw.Attacks,
		Attacker:   deref(raw.Attacker, ""),
		Suites:     raw.Suites,
		UserTasks:  raw.UserTasks,
		Injections: raw.Injections,
	}
	if _, present := bc.Attrs["defenses"]; !present {
		g.Defenses = []string{kinds.None}
	}
	if bc.OK("batch") && strings.TrimSpace(g.Batch) == "" {
		d.errorf(bc.Rng("batch"), "Invalid batch", "batch must not be empty; omit it to use the grid name.")
	}

	if !bc.Has("tasks") && !bc.Has("suites") {
		missing := b.Body.MissingItemRange()
		d.errorf(&missing, "Missing required argument", "The argument \"tasks\" is required (or \"suites\"), but no definition was found.")
	}
	found := d.gridTasks(bc, g)
	d.gridVariants(bc, g, found)
	d.gridAttacks(bc, g, found)
	suiteTasks := d.gridSuites(bc, g)
	d.gridAttacker(bc, g)
	d.gridModels(bc, g)
	d.gridPairs(bc, g, raw.Pairs)
	d.gridNames(bc, g.Conditions, "conditions", "condition", func(n string) bool { _, ok := d.study.Condition(n); return ok }, d.conditionNames)
	d.gridNames(bc, g.Defenses, "defenses", "defense", func(n string) bool { _, ok := d.study.Defense(n); return ok }, d.defenseNames)

	if bc.OK("repeats") {
		switch {
		case g.Repeats < 0:
			d.errorf(bc.Rng("repeats"), "Negative repeats", "repeats must be at least 1; got %d.", g.Repeats)
		case g.Repeats == 0:
			d.errorf(bc.Rng("repeats"), "Invalid repeats", "repeats must be at least 1; a grid of 0 repeats plans no runs.")
		}
	}
	d.gridCoverage(bc, g, found, suiteTasks)
	d.study.Grids = append(d.study.Grids, g)
}

// gridTasks checks the task names and returns the known tasks by index.
func (d *decoder) gridTasks(bc *hcldiag.Block, g *Grid) map[int]*tasks.Task {
	found := map[int]*tasks.Task{}
	if !bc.OK("tasks") {
		return found
	}
	if len(g.Tasks) == 0 {
		d.errorf(bc.Rng("tasks"), "Empty tasks", "Grid %q needs at least one task.", g.Name)
	}
	seen := map[string]bool{}
	for i, name := range g.Tasks {
		if seen[name] {
			d.errorf(bc.Elem("tasks", i), "Duplicate task", "Grid %q lists task %q more than once.", g.Name, name)
			continue
		}
		seen[name] = true
		t, ok := d.study.Tasks.Get(name)
		if !ok {
			d.errorf(bc.Elem("tasks", i), "Unknown task", "%q is not a task%s.", name, knownTasks(name, d.study.Tasks))
			continue
		}
		if t.Environment != nil {
			// Its runs plant a suite's injections, with the suite's
			// attacker and user: the suite's grid plans them.
			d.errorf(bc.Elem("tasks", i), "User task in tasks",
				"%q is a user task of environment %q: a grid runs it over a suite (suites = [\"SUITE\"], user_tasks = [%q]).", name, t.Environment.Name, name)
			continue
		}
		found[i] = t
	}
	return found
}

// gridVariants checks that every listed variant exists in every task.
func (d *decoder) gridVariants(bc *hcldiag.Block, g *Grid, found map[int]*tasks.Task) {
	if !bc.OK("variants") {
		return
	}
	if len(g.Variants) == 0 {
		d.errorf(bc.Rng("variants"), "Empty variants", "Omit variants to run every variant of each task; an empty list runs none.")
	}
	seen := map[string]bool{}
	for i, v := range g.Variants {
		if seen[v] {
			d.errorf(bc.Elem("variants", i), "Duplicate variant", "Grid %q lists variant %q more than once.", g.Name, v)
			continue
		}
		seen[v] = true
		for ti := range g.Tasks {
			t, ok := found[ti]
			if !ok {
				continue
			}
			if _, ok := t.Variant(v); !ok {
				d.errorf(bc.Elem("variants", i), "Unknown variant",
					"%q is not a variant of task %q (its variants: %s).", v, t.Name, strings.Join(t.VariantNames(), ", "))
			}
		}
	}
}

// gridModels checks the models list.
func (d *decoder) gridModels(bc *hcldiag.Block, g *Grid) {
	if !bc.OK("models") {
		return
	}
	seen := map[string]bool{}
	for i, m := range g.Models {
		if seen[m] {
			d.errorf(bc.Elem("models", i), "Duplicate model", "Grid %q lists model %q more than once.", g.Name, m)
			continue
		}
		seen[m] = true
		d.knownModel(bc.Elem("models", i), m, "grid \""+g.Name+"\"")
	}
}

// gridPairs checks the [writer, reader] pairs and keeps the well-formed ones.
func (d *decoder) gridPairs(bc *hcldiag.Block, g *Grid, pairs [][]string) {
	if !bc.OK("pairs") {
		return
	}
	seen := map[[2]string]bool{}
	for i, p := range pairs {
		if len(p) != 2 {
			d.errorf(bc.Elem("pairs", i), "Invalid pair", "Each pair is [writer, reader], two model names; this one has %d.", len(p))
			continue
		}
		pair := [2]string{p[0], p[1]}
		for j, m := range p {
			d.knownModel(bc.Elem2("pairs", i, j), m, "grid \""+g.Name+"\"")
		}
		switch {
		case seen[pair]:
			d.errorf(bc.Elem("pairs", i), "Duplicate pair", "Grid %q lists the pair [%q, %q] more than once.", g.Name, p[0], p[1])
			continue
		case p[0] == p[1] && bc.OK("models") && slices.Contains(g.Models, p[0]):
			d.errorf(bc.Elem("pairs", i), "Duplicate pair",
				"Model %q is in the grid's models, which already run as the same-model pair [%q, %q] in relay tasks.", p[0], p[0], p[0])
			continue
		}
		seen[pair] = true
		g.Pairs = append(g.Pairs, pair)
	}
}

// gridNames checks a list of condition or defense names.
func (d *decoder) gridNames(bc *hcldiag.Block, names []string, attr, what string, ok func(string) bool, all func() []string) {
	if !bc.OK(attr) {
		return
	}
	if len(names) == 0 {
		d.errorf(bc.Rng(attr), "Empty "+attr, "Grid %q needs at least one %s.", bc.Name, what)
	}
	seen := map[string]bool{}
	for i, n := range names {
		if seen[n] {
			d.errorf(bc.Elem(attr, i), "Duplicate "+what, "Grid %q lists %s %q more than once.", bc.Name, what, n)
			continue
		}
		seen[n] = true
		if !ok(n) {
			d.errorf(bc.Elem(attr, i), "Unknown "+what, "%q is not a %s of this study%s.", n, what, known(n, all()))
		}
	}
}

// gridCoverage reports tasks that the grid's models and pairs leave
// without runs, and pairs that no relay task uses.
func (d *decoder) gridCoverage(bc *hcldiag.Block, g *Grid, found map[int]*tasks.Task, suiteTasks []*tasks.Task) {
	if bc.Bad["models"] || bc.Bad["pairs"] {
		return
	}
	if len(g.Models) == 0 && len(g.Pairs) == 0 {
		if _, present := bc.Attrs["pairs"]; !present {
			d.errorf(hcldiag.LabelRange(bc.Block), "No models", "Grid %q names no models and no pairs, so it plans no runs.", g.Name)
		}
		return
	}
	relays := 0
	for i := range g.Tasks {
		t, ok := found[i]
		if !ok {
			continue
		}
		if isRelay(t.Mode) {
			relays++
			continue
		}
		if len(g.Models) == 0 {
			d.errorf(bc.Elem("tasks", i), "Task without models",
				"Task %q is single-agent and grid %q names no models; pairs apply only to relay tasks.", t.Name, g.Name)
		}
	}
	single := false
	for _, t := range suiteTasks {
		if isRelay(t.Mode) {
			relays++
		} else {
			single = true
		}
	}
	if single && len(g.Models) == 0 {
		d.errorf(bc.Rng("suites"), "Suite without models",
			"Grid %q names no models, and its suites have single-role user tasks; pairs apply only to pipelines.", g.Name)
	}
	if relays == 0 && len(g.Pairs) > 0 && len(found) == len(g.Tasks) {
		d.warnf(bc.Rng("pairs"), "Unused pairs", "Grid %q has no relay task, so its pairs plan no runs.", g.Name)
	}
}

func (d *decoder) conditionNames() []string {
	out := make([]string, len(d.study.Conditions))
	for i, c := range d.study.Conditions {
		out[i] = c.Name
	}
	return out
}

func (d *decoder) defenseNames() []string {
	out := make([]string, len(d.study.Defenses))
	for i, def := range d.study.Defenses {
		out[i] = def.Name
	}
	return out
}
