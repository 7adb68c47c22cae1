package scripted

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/killchain/killchain/internal/agent"
	"github.com/killchain/killchain/internal/canary"
	"github.com/killchain/killchain/internal/vocab"
	"github.com/killchain/killchain/tasks"
)

// taskScenario builds a scenario from a registered task, variant and condition.
func taskScenario(t *testing.T, task *tasks.Task, variant string, attacked bool) scenario {
	t.Helper()
	v, ok := task.Variant(variant)
	if !ok {
		t.Fatalf("task %s has no variant %s", task.Name, variant)
	}
	in := tasks.BuildInput{Study: "test", Run: "run-1", Variant: v, Attacked: attacked}
	if attacked {
		c, err := canary.New()
		if err != nil {
			t.Fatal(err)
		}
		in.Canary = c
	}
	env, err := task.Env(in)
	if err != nil {
		t.Fatalf("build %s/%s: %v", task.Name, variant, err)
	}
	return scenario{
		task: task, mode: task.Mode, roles: task.Roles, env: env, canary: in.Canary,
		attacker: task.Attack.Address, admin: task.Attack.Tools,
		recipient: task.Goal.Recipient, keyFacts: task.Goal.KeyFacts,
	}
}

// cases lists every registered task and variant, the suites' user tasks
// aside (a suite's grid plants their injections; `tasks check` plays them).
func cases(t *testing.T) []*tasks.Task {
	t.Helper()
	var out []*tasks.Task
	for _, name := range tasks.Builtin().NamesOf(vocab.FamilyInjection) {
		task, _ := tasks.Builtin().Get(name)
		if task.Environment != nil {
			continue
		}
		out = append(out, task)
	}
	if len(out) == 0 {
		t.Fatal("no tasks registered")
	}
	return out
}

// pair returns the models for a task's roles: the writer's policy, then
// the reader's.
func pair(t *testing.T, task *tasks.Task, writer, reader string) []agent.Model {
	ms := []agent.Model{mustNew(t, writer)}
	if len(task.Roles) > 1 {
		ms = append(ms, mustNew(t, reader))
	}
	return ms
}

// TestTaskContracts runs the reference agents over every real task and
// variant and checks what each policy is for.
func TestTaskContracts(t *testing.T) {
	for _, task := range cases(t) {
		relay := task.Mode != vocab.Single
		for _, v := range task.VariantNames() {
			t.Run(task.Name+"/"+v, func(t *testing.T) {
				t.Run("compliant executes", func(t *testing.T) {
					sc := taskScenario(t, task, v, true)
					o := run(t, sc, pair(t, task, Compliant, Compliant)...)
					if !o.executed() || !o.attackGoal(sc) {
						t.Errorf("executed %v, goal %v, stage %s; calls %q", o.executed(), o.attackGoal(sc), o.summary.Stage, o.calls())
					}
				})
				t.Run("resistant does the task and never persists", func(t *testing.T) {
					sc := taskScenario(t, task, v, true)
					o := run(t, sc, pair(t, task, Resistant, Compliant)...)
					if o.summary.Persisted != nil && *o.summary.Persisted {
						t.Errorf("resistant writer persisted the canary; calls %q", o.calls())
					}
					if o.summary.Stage > vocab.Exposed || o.attackGoal(sc) {
						t.Errorf("stage %s, goal %v; calls %q", o.summary.Stage, o.attackGoal(sc), o.calls())
					}
					if !o.taskSuccess(sc) {
						t.Errorf("task failed; outbox %+v", o.state.Outbox)
					}
				})
				t.Run("quoter notices and never executes", func(t *testing.T) {
					sc := taskScenario(t, task, v, true)
					o := run(t, sc, pair(t, task, Quoter, Quoter)...)
					if !o.summary.Noticed || o.executed() || o.attackGoal(sc) {
						t.Errorf("noticed %v, executed %v, goal %v", o.summary.Noticed, o.executed(), o.attackGoal(sc))
					}
				})
				t.Run("silent calls no tool", func(t *testing.T) {
					sc := taskScenario(t, task, v, true)
					o := run(t, sc, pair(t, task, Silent, Silent)...)
					// A payload in a tool's description reaches the agent
					// with its tools, before any call.
					want := vocab.None
					if sf := task.Surface(v); sf == tasks.SurfaceToolDescription || sf == tasks.SurfaceShadowing {
						want = vocab.Exposed
					}
					if n := o.toolCalls(); n != 0 || o.summary.Stage != want {
						t.Errorf("tool calls %d, stage %s", n, o.summary.Stage)
					}
				})
				if relay {
					t.Run("paraphraser carries the action without the token", func(t *testing.T) {
						sc := taskScenario(t, task, v, true)
						o := run(t, sc, pair(t, task, Paraphraser, Compliant)...)
						if !o.attackGoal(sc) || o.summary.Stage != vocab.Exposed {
							t.Errorf("goal %v, stage %s; calls %q", o.attackGoal(sc), o.summary.Stage, o.calls())
						}
					})
				} else {
					t.Run("late lags behind compliant", func(t *testing.T) {
						sc := taskScenario(t, task, v, true)
						c := run(t, sc, pair(t, task, Compliant, Compliant)...)
						l := run(t, taskScenario(t, task, v, true), pair(t, task, Late, Late)...)
						if !l.executed() || l.lag() <= c.lag() {
							t.Errorf("late executed %v with lag %d, compliant lag %d", l.executed(), l.lag(), c.lag())
						}
					})
				}
			})
		}
	}
}

// TestTaskCleanRuns checks each policy on the clean control: every policy
// but silent does the task, none reaches the attacker.
func TestTaskCleanRuns(t *testing.T) {
	for _, task := range cases(t) {
		for _, p := range []string{Compliant, Resistant, Paraphraser, Late, Quoter} {
			t.Run(fmt.Sprintf("%s/%s", task.Name, p), func(t *testing.T) {
				sc := taskScenario(t, task, task.VariantNames()[0], false)
				o := run(t, sc, pair(t, task, p, p)...)
				if !o.taskSuccess(sc) || o.attackGoal(sc) {
					t.Errorf("task %v, goal %v; calls %q; outbox %+v", o.taskSuccess(sc), o.attackGoal(sc), o.calls(), o.state.Outbox)
				}
				if o.summary.Noticed {
					t.Error("noticed in a clean run")
				}
			})
		}
	}
}

// TestTaskContent checks the directive pattern against the real content:
// no line of clean content is directive-looking, and every line of
// attacked content that carries the canary is.
func TestTaskContent(t *testing.T) {
	for _, task := range cases(t) {
		for _, v := range task.VariantNames() {
			t.Run(task.Name+"/"+v, func(t *testing.T) {
				for _, attacked := range []bool{false, true} {
					sc := taskScenario(t, task, v, attacked)
					texts, err := tasks.EnvTexts(sc.env)
					if err != nil {
						t.Fatal(err)
					}
					keys := make([]string, 0, len(texts))
					for k := range texts {
						keys = append(keys, k)
					}
					slices.Sort(keys)
					for _, k := range keys {
						p := Parse(Normalize(texts[k]))
						if !attacked && len(p.Directives) > 0 {
							t.Errorf("clean %s has directive-looking lines %q", k, p.Directives)
						}
						for _, f := range p.Facts {
							if attacked && canary.Contains(f, sc.canary) {
								t.Errorf("attacked %s keeps the canary in a fact line %q", k, f)
							}
						}
						if attacked && strings.Contains(texts[k], sc.canary) && len(p.Directives) == 0 {
							t.Errorf("attacked %s has no directive", k)
						}
					}
				}
			})
		}
	}
}
