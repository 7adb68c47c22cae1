package runner

import (
	"cmp"
	"fmt"

	"github.com/killchain/killchain/internal/agent"
	"github.com/killchain/killchain/internal/defense"
	"github.com/killchain/killchain/internal/study"
	"github.com/killchain/killchain/sandbox"
	"github.com/killchain/killchain/tasks"
)

// preparedRun is one planned run made ready before any sandbox opens or
// any model is called: what execute drives over a sandbox, and what Brief
// shows.
type preparedRun struct {
	run    study.Run
	canary string // the run's canary; "" when it carries none
	task   *tasks.Task
	// variant is what the run plants: the attack written for this run
	// (the plan's parse of it, payloads filled), or the task's own
	// variant by name.
	variant tasks.Variant
	// env is the environment the run's sandbox starts from, the payload
	// and the canary in place.
	env      sandbox.Env
	defenses []agent.Defense
	// roles are the agents in the order they run: agent A, then agent B
	// of a relay (a task's roles past the second are not run).
	roles []preparedRole
}

// preparedRole is one agent of a prepared run.
type preparedRole struct {
	role  tasks.Role
	model string // the model block's name
	// cfg is what the agent is told and offered: its system prompt, the
	// condition's instructions, its prompt (a delegation relay's agent B
	// gets the handoff put in as it starts), its tools, level and
	// defenses. drive adds the model, the sandbox, the tracker and the
	// transcript.
	cfg agent.Config
}

// prepare makes a planned run ready: its task, the variant it plants, the
// environment with the payload and canaryToken in place, its defenses
// (from defenses) and each agent's configuration. An error is the
// study's, never the sandbox's or a provider's; the prepared run then
// holds what was found before it (its task, once found), so that the
// run's record can still name its family.
func prepare(s *study.Study, pr study.Run, canaryToken string, defenses func(name string) ([]agent.Defense, error)) (preparedRun, error) {
	p := preparedRun{run: pr, canary: canaryToken}
	task, ok := s.Tasks.Get(pr.Task)
	if !ok {
		return p, fmt.Errorf("unknown task %q", pr.Task)
	}
	p.task = task
	var err error
	if p.variant, err = s.RunVariant(task, pr); err != nil {
		return p, fmt.Errorf("attack: %w", err)
	}
	p.env, err = task.Env(tasks.BuildInput{Study: s.Name, Run: pr.RunID, Variant: p.variant, Attacked: pr.Attacked, Canary: canaryToken})
	if err != nil {
		return p, fmt.Errorf("build environment: %w", err)
	}
	if p.defenses, err = defenses(pr.Defense); err != nil {
		return p, err
	}
	instructions := ""
	if cond, ok := s.Condition(pr.Condition); ok {
		instructions = cond.Instructions
	}
	taskTools := tasks.Specs(p.env.Tools)
	models := []string{pr.ModelA, cmp.Or(pr.ModelB, pr.ModelA)}
	for pos, role := range task.Roles[:min(2, len(task.Roles))] {
		p.roles = append(p.roles, preparedRole{role: role, model: models[pos], cfg: agent.Config{
			Agent: role.Name, Pos: pos, System: role.System, Prompt: task.PromptFor(role, pr.Condition),
			Condition: instructions, Level: role.Level, Tools: role.Tools, TaskTools: taskTools, PayloadTools: task.PayloadTools,
			Defenses: p.defenses, MaxTurns: s.MaxTurns,
		}})
	}
	return p, nil
}

// buildDefenses builds the defenses of a study's defense name. classifier
// gives the model a defense that classifies calls uses: the study's model
// of that block name, or, for "", the built-in keyword classifier.
func buildDefenses(s *study.Study, name string, classifier func(model string) (agent.Model, error)) ([]agent.Defense, error) {
	def, ok := s.Defense(name)
	if !ok {
		return nil, fmt.Errorf("unknown defense %q", name)
	}
	opt := defense.Options{Patterns: def.Patterns, Datamark: def.Datamark}
	switch {
	case def.Classifier != "":
		m, err := classifier(def.Classifier)
		if err != nil {
			return nil, fmt.Errorf("defense %s: %w", name, err)
		}
		opt.Classifier = m
	case defense.NeedsClassifier(def.Kind):
		m, err := classifier("")
		if err != nil {
			return nil, fmt.Errorf("defense %s: built-in classifier: %w", name, err)
		}
		opt.Classifier = m
	}
	d, err := defense.Build(def.Kind, opt)
	if err != nil {
		return nil, fmt.Errorf("defense %s: %w", name, err)
	}
	return d, nil
}
