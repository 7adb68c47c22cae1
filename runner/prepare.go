package runner

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/killchain/killchain/internal/agent"
	"github.com/killchain/killchain/internal/defense"
	"github.com/killchain/killchain/internal/study"
	"github.com/killchain/killchain/internal/vocab"
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
	// of a relay, then a pipeline's later roles (a relay's roles past the
	// second are not run).
	roles []preparedRole
	// suite and injection are a suite run's (injection nil for a clean
	// control); attacker is the attacker's identity its payload and checks
	// name (the injection's, else the suite's).
	suite     *tasks.Suite
	injection *tasks.Injection
	attacker  string
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
	if err := p.stateful(s); err != nil {
		return p, err
	}
	if p.variant, err = s.RunVariant(task, pr); err != nil {
		return p, fmt.Errorf("attack: %w", err)
	}
	p.env, err = task.Env(tasks.BuildInput{Study: s.Name, Run: pr.RunID, Variant: p.variant, Attacked: pr.Attacked, Canary: canaryToken, Attacker: p.attacker})
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
	roles := task.Roles
	if task.Mode != vocab.Pipeline {
		roles = roles[:min(2, len(roles))]
	}
	served, writes := task.EnvToolNames()
	worldTools := map[string]bool{}
	for _, n := range served {
		worldTools[n] = slices.Contains(writes, n)
	}
	payloadTools := task.PayloadTools
	if len(payloadTools) == 0 && task.Environment != nil {
		payloadTools = served // any read of the state may show a vector
	}
	byRole, err := scripts(task, p.injection, canaryToken, p.attacker)
	if err != nil {
		return p, err
	}
	for pos, role := range roles {
		model := pr.ModelA
		if pos > 0 {
			model = cmp.Or(pr.ModelB, pr.ModelA)
		}
		p.roles = append(p.roles, preparedRole{role: role, model: model, cfg: agent.Config{
			Agent: role.Name, Pos: pos, System: role.System, Prompt: task.PromptFor(role, pr.Condition),
			Condition: instructions, Level: role.Level, Tools: role.Tools, TaskTools: taskTools, PayloadTools: payloadTools,
			Defenses: p.defenses, MaxTurns: s.MaxTurns,
			WorldTools: worldTools, Shadowed: p.env.World != nil && len(p.env.World.Clean) > 0, Script: byRole[role.Name],
		}})
	}
	return p, nil
}

// stateful finds a suite run's suite and injection, and the attacker's
// identity they give.
func (p *preparedRun) stateful(s *study.Study) error {
	pr := p.run
	if pr.Suite != "" {
		su, ok := s.Tasks.Suite(pr.Suite)
		if !ok {
			return fmt.Errorf("unknown suite %q", pr.Suite)
		}
		p.suite, p.attacker = su, su.Attacker
	}
	if pr.Injection != "" {
		in, ok := s.Tasks.Injection(pr.Injection)
		if !ok {
			return fmt.Errorf("unknown injection %q", pr.Injection)
		}
		p.injection, p.attacker = in, cmp.Or(in.Attacker, p.attacker)
	}
	return nil
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
