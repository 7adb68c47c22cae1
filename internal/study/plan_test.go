package study

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/killchain/killchain/internal/defense/kinds"
	"github.com/killchain/killchain/internal/vocab"
	"github.com/killchain/killchain/tasks"
)

// planOf parses src and plans it, failing the test on any problem.
func planOf(t *testing.T, src string) (*Study, []Run) {
	t.Helper()
	s, diags := Parse("t.hcl", []byte(src))
	if diags.HasErrors() {
		t.Fatalf("parse: %v", diagKeys(diags))
	}
	runs, err := s.Plan()
	if err != nil {
		t.Fatalf("plan: %v", err)
	}
	return s, runs
}

// expectedRuns counts a grid's runs from the registry, independently of
// Plan's loops: per task, agents × defenses × repeats × (one cell per
// clean condition + one per attacked condition and variant).
func expectedRuns(t *testing.T, s *Study, g *Grid) int {
	t.Helper()
	clean, attacked := 0, 0
	for _, c := range g.Conditions {
		cond, _ := s.Condition(c)
		if cond.Payload {
			attacked++
		} else {
			clean++
		}
	}
	total := 0
	for _, name := range g.Tasks {
		task, ok := tasks.Builtin().Get(name)
		if !ok {
			t.Fatalf("task %s is not registered", name)
		}
		variants := len(g.Variants)
		if g.Variants == nil {
			variants = len(task.VariantNames())
		}
		agents := len(g.Models)
		if isRelay(task.Mode) {
			agents += len(g.Pairs)
		}
		total += agents * len(g.Defenses) * g.Repeats * (clean + attacked*variants)
	}
	return total
}

const planHeader = `study "p" {
  seed = 9
}
model "a" {
  provider = "scripted"
  policy   = "compliant"
}
model "b" {
  provider = "scripted"
  policy   = "resistant"
}
`

func TestPlanExpansion(t *testing.T) {
	cases := []struct {
		name  string
		grid  string
		check func(t *testing.T, runs []Run)
	}{
		{
			name: "plain collapses variants into one clean cell",
			grid: `tasks = ["memory_poison", "cross_modal_relay"]
  models = ["a"]
  conditions = ["plain"]`,
			check: func(t *testing.T, runs []Run) {
				for _, r := range runs {
					task, _ := tasks.Builtin().Get(r.Task)
					if r.Variant != CleanVariant || r.Attacked || r.Surface != task.Variants[0].Surface {
						t.Errorf("clean run %s: variant %q attacked %v surface %q", r.Cell, r.Variant, r.Attacked, r.Surface)
					}
				}
			},
		},
		{
			name: "payload conditions multiply variants",
			grid: `tasks = ["memory_poison", "cross_modal_relay"]
  models = ["a", "b"]
  conditions = ["plain", "hack", "narrate"]
  defenses = ["none", "spotlighting"]
  repeats = 2`,
			check: func(t *testing.T, runs []Run) {
				for _, r := range runs {
					task, _ := tasks.Builtin().Get(r.Task)
					v, ok := task.Variant(r.Variant)
					switch {
					case r.Attacked && (!ok || r.Surface != v.Surface):
						t.Errorf("attacked run %s: surface %q, want the variant's", r.Cell, r.Surface)
					case r.Attacked == (r.Condition == CondPlain):
						t.Errorf("run %s: attacked %v under %s", r.Cell, r.Attacked, r.Condition)
					}
				}
			},
		},
		{
			name: "models run as same-model pairs in relays",
			grid: `tasks = ["propagation", "permission_esc"]
  variants = ["direct"]
  models = ["a", "b"]
  conditions = ["hack"]`,
			check: func(t *testing.T, runs []Run) {
				for _, r := range runs {
					if r.ModelA != r.ModelB {
						t.Errorf("relay run %s: %s→%s, want a same-model pair", r.Cell, r.ModelA, r.ModelB)
					}
				}
			},
		},
		{
			name: "pairs apply only to relay tasks",
			grid: `tasks = ["memory_poison", "propagation"]
  variants = ["direct"]
  models = ["a"]
  pairs = [["a", "b"], ["b", "a"]]
  conditions = ["plain", "hack"]`,
			check: func(t *testing.T, runs []Run) {
				agents := map[string][]string{}
				for _, r := range runs {
					if !slices.Contains(agents[r.Task], r.Models()) {
						agents[r.Task] = append(agents[r.Task], r.Models())
					}
				}
				if got := strings.Join(agents["memory_poison"], " "); got != "a" {
					t.Errorf("memory_poison agents = %q, want \"a\"", got)
				}
				if got := strings.Join(agents["propagation"], " "); got != "a→a a→b b→a" {
					t.Errorf("propagation agents = %q, want \"a→a a→b b→a\"", got)
				}
			},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s, runs := planOf(t, planHeader+"grid \"g\" {\n  "+c.grid+"\n}\n")
			if want := expectedRuns(t, s, s.Grids[0]); len(runs) != want {
				t.Errorf("%d runs, want %d", len(runs), want)
			}
			for _, r := range runs {
				task, _ := tasks.Builtin().Get(r.Task)
				if r.Mode != task.Mode || (r.ModelB == "") == isRelay(task.Mode) {
					t.Errorf("run %s: mode %q with model_b %q", r.Cell, r.Mode, r.ModelB)
				}
				if r.Grid != "g" || r.Batch != "g" {
					t.Errorf("run %s: grid %q batch %q", r.Cell, r.Grid, r.Batch)
				}
			}
			c.check(t, runs)
		})
	}
}

func TestPlanOrder(t *testing.T) {
	s, runs := planOf(t, planHeader+`grid "g" {
  tasks      = ["propagation", "memory_poison"]
  models     = ["b", "a"]
  pairs      = [["a", "b"]]
  conditions = ["hack", "plain"]
  defenses   = ["spotlighting", "none"]
  repeats    = 3
}`)
	g := s.Grids[0]
	index := func(list []string, v string) int { return slices.Index(list, v) }
	key := func(r Run) []int {
		task, _ := tasks.Builtin().Get(r.Task)
		variant := -1 // the clean cell comes first
		if r.Variant != CleanVariant {
			variant = index(task.VariantNames(), r.Variant)
		}
		agent := slices.Index(gridAgents(g, task), [2]string{r.ModelA, r.ModelB})
		return []int{index(g.Tasks, r.Task), variant, agent, index(g.Conditions, r.Condition), index(g.Defenses, r.Defense), r.Repeat}
	}
	for i := 1; i < len(runs); i++ {
		if slices.Compare(key(runs[i-1]), key(runs[i])) >= 0 {
			t.Fatalf("run %d (%s #%d) is not after run %d (%s #%d)", i, runs[i].Cell, runs[i].Repeat, i-1, runs[i-1].Cell, runs[i-1].Repeat)
		}
	}
	if runs[0].Repeat != 0 || runs[2].Repeat != 2 {
		t.Errorf("repeats are not 0-based and consecutive: %d, %d", runs[0].Repeat, runs[2].Repeat)
	}
}

var runIDRE = regexp.MustCompile(`^([a-z_]+)-[0-9a-f]{8}$`)

func TestRunIDs(t *testing.T) {
	grid := `grid "g" {
  tasks      = ["memory_poison", "propagation", "cross_modal_relay"]
  models     = ["a", "b"]
  pairs      = [["a", "b"]]
  conditions = ["plain", "hack"]
  defenses   = ["none", "all"]
  repeats    = 3
}
`
	s, runs := planOf(t, planHeader+grid)
	_, again := planOf(t, planHeader+grid)
	seen := map[string]bool{}
	for i, r := range runs {
		m := runIDRE.FindStringSubmatch(r.RunID)
		if m == nil || m[1] != r.Task {
			t.Errorf("run id %q does not read <task>-<8 hex> for task %s", r.RunID, r.Task)
		}
		if seen[r.RunID] {
			t.Errorf("run id %s is not unique", r.RunID)
		}
		seen[r.RunID] = true
		if again[i].RunID != r.RunID || again[i].Cell != r.Cell {
			t.Errorf("run %d differs between two plans of the same file: %s vs %s", i, r.RunID, again[i].RunID)
		}
	}
	hash := s.PlanHash(runs)
	if hash != s.PlanHash(again) || len(hash) != 64 {
		t.Errorf("plan hash %q is not stable", hash)
	}

	// Adding a grid keeps every earlier run's id: a resume can extend a study.
	extended, more := planOf(t, planHeader+grid+strings.Replace(grid, `grid "g"`, `grid "h"`, 1))
	for i, r := range runs {
		if more[i].RunID != r.RunID {
			t.Fatalf("run %d changed id when a grid was added: %s → %s", i, r.RunID, more[i].RunID)
		}
	}
	if extended.PlanHash(more) == hash {
		t.Error("plan hash did not change when a grid was added")
	}

	changes := []struct{ name, from, to string }{
		{"seed", "seed = 9", "seed = 10"},
		{"study name", `study "p"`, `study "q"`},
	}
	for _, c := range changes {
		t.Run(c.name, func(t *testing.T) {
			s2, other := planOf(t, strings.Replace(planHeader, c.from, c.to, 1)+grid)
			if len(other) != len(runs) {
				t.Fatalf("%d runs, want %d", len(other), len(runs))
			}
			for i := range runs {
				if other[i].RunID == runs[i].RunID {
					t.Errorf("run %s kept id %s when the %s changed", runs[i].Cell, runs[i].RunID, c.name)
				}
			}
			if s2.PlanHash(other) == hash {
				t.Errorf("plan hash did not change with the %s", c.name)
			}
		})
	}
}

func TestPlanRejectsCollidingIDs(t *testing.T) {
	s, _ := planOf(t, planHeader+`grid "g" {
  tasks      = ["memory_poison"]
  models     = ["a"]
  conditions = ["hack"]
}`)
	s.Grids = append(s.Grids, s.Grids[0]) // the same cells twice
	if _, err := s.Plan(); err == nil || !strings.Contains(err.Error(), "collides") {
		t.Fatalf("Plan of a doubled grid: err = %v, want a collision", err)
	}
}

func TestSummaryAddsUp(t *testing.T) {
	_, runs := planOf(t, planHeader+`grid "g" {
  tasks      = ["memory_poison", "propagation"]
  models     = ["a"]
  pairs      = [["a", "b"]]
  conditions = ["plain", "narrate"]
  defenses   = ["none", "pi_detector"]
  repeats    = 2
}`)
	sum := Summary(runs)
	if sum.Total != len(runs) || sum.Attacked+sum.Clean != sum.Total || sum.AttackedCells+sum.CleanCells != sum.Cells {
		t.Fatalf("summary totals do not add up: %+v", sum)
	}
	if sum.Cells*2 != sum.Total {
		t.Errorf("%d cells of 2 repeats, %d runs", sum.Cells, sum.Total)
	}
	for name, list := range map[string][]Count{
		"batch": sum.Batches, "task": sum.Tasks, "surface": sum.Surfaces, "model": sum.Models,
		"condition": sum.Conditions, "defense": sum.Defenses, "cell": sum.CellRuns,
	} {
		runs, cells := 0, 0
		for _, c := range list {
			runs += c.Runs
			cells += c.Cells
		}
		if runs != sum.Total || cells != sum.Cells {
			t.Errorf("per %s: %d runs in %d cells, want %d in %d", name, runs, cells, sum.Total, sum.Cells)
		}
	}
}

func TestSmokeStudy(t *testing.T) {
	s, diags := Load("../../hcl/smoke.hcl")
	if len(diags) > 0 {
		t.Fatalf("smoke.hcl: %v", diagKeys(diags))
	}
	runs, err := s.Plan()
	if err != nil {
		t.Fatal(err)
	}
	if len(runs) < 200 || len(runs) > 600 {
		t.Errorf("smoke.hcl plans %d runs, want a few hundred", len(runs))
	}
	if s.Concurrency != 8 || s.Output != "runs/smoke" || s.Sandbox != "docker" {
		t.Errorf("study settings: concurrency %d output %q sandbox %q", s.Concurrency, s.Output, s.Sandbox)
	}
	for _, m := range s.Models {
		if m.Provider != ProviderScripted || m.Policy != m.Name {
			t.Errorf("model %s: provider %s policy %s, want a scripted agent named after its policy", m.Name, m.Provider, m.Policy)
		}
	}

	type seenKey struct{ task, variant, models, condition, defense string }
	seen := map[seenKey]bool{}
	for _, r := range runs {
		seen[seenKey{r.Task, r.Variant, r.Models(), r.Condition, r.Defense}] = true
	}
	var missing []string
	need := func(k seenKey) {
		if !seen[k] {
			missing = append(missing, fmt.Sprint(k))
		}
	}
	policies := []string{"compliant", "resistant", "paraphraser", "late", "quoter", "silent"}
	pairs := []string{"compliant→compliant", "resistant→compliant", "paraphraser→compliant", "compliant→resistant"}
	var injection []string // the reward-hack family has its own reference agents
	for _, name := range tasks.Builtin().Names() {
		// The MCP tasks have their own study (hcl/mcp.hcl, TestMCPStudyFile).
		// The suites' user tasks run in grids over their suites.
		if task, _ := tasks.Builtin().Get(name); task.Family() == vocab.FamilyInjection && !task.MCP() && task.Environment == nil {
			injection = append(injection, name)
		}
	}
	if len(injection) != 7 {
		t.Errorf("registry holds %d injection tasks, want 7: %v", len(injection), injection)
	}
	for _, name := range injection {
		task, _ := tasks.Builtin().Get(name)
		agents := policies
		if isRelay(task.Mode) {
			agents = pairs
		}
		for _, a := range agents {
			need(seenKey{name, CleanVariant, a, CondPlain, kinds.None})
			for i, v := range task.VariantNames() {
				need(seenKey{name, v, a, CondHack, kinds.None})
				// Speech costs seconds of CPU per run: the audio task is
				// narrated in its first variant only.
				if name != "audio_inject" || i == 0 {
					need(seenKey{name, v, a, CondNarrate, kinds.None})
				}
			}
		}
		compliant := "compliant"
		if isRelay(task.Mode) {
			compliant = "compliant→compliant"
		}
		for _, def := range []string{kinds.None, kinds.WriteFilter, kinds.PIDetector, kinds.Spotlighting, kinds.All} {
			need(seenKey{name, CleanVariant, compliant, CondPlain, def})
			need(seenKey{name, task.VariantNames()[0], compliant, CondHack, def})
		}
	}
	if len(missing) > 0 {
		t.Errorf("smoke.hcl lacks %d cells, e.g. %v", len(missing), missing[:min(5, len(missing))])
	}
}

// TestMCPStudyFile checks that hcl/mcp.hcl runs the compliant and resistant
// reference agents over every built-in MCP task, every variant and the
// clean control, with and without tool_pinning.
func TestMCPStudyFile(t *testing.T) {
	s, diags := Load("../../hcl/mcp.hcl")
	if len(diags) > 0 {
		t.Fatalf("mcp.hcl: %v", diagKeys(diags))
	}
	runs, err := s.Plan()
	if err != nil {
		t.Fatal(err)
	}
	if s.Sandbox != "docker" {
		t.Errorf("sandbox %q, want docker", s.Sandbox)
	}
	type key struct{ task, variant, models, condition, defense string }
	seen := map[key]bool{}
	for _, r := range runs {
		seen[key{r.Task, r.Variant, r.Models(), r.Condition, r.Defense}] = true
	}
	n := 0
	for _, name := range tasks.Builtin().Names() {
		task, _ := tasks.Builtin().Get(name)
		if !task.MCP() {
			continue
		}
		n++
		agents := []string{"compliant", "resistant"}
		if isRelay(task.Mode) {
			agents = []string{"compliant→compliant", "resistant→resistant"}
		}
		for _, a := range agents {
			for _, def := range []string{kinds.None, kinds.ToolPinning} {
				if !seen[key{name, CleanVariant, a, CondPlain, def}] {
					t.Errorf("mcp.hcl lacks %s clean %s %s", name, a, def)
				}
				for _, v := range task.VariantNames() {
					if !seen[key{name, v, a, CondHack, def}] {
						t.Errorf("mcp.hcl lacks %s %s %s %s", name, v, a, def)
					}
				}
			}
		}
	}
	if n < 4 {
		t.Errorf("%d built-in MCP tasks, want at least 4", n)
	}
}
