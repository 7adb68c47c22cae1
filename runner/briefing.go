package runner

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/killchain/killchain/internal/agent"
	"github.com/killchain/killchain/internal/study"
	"github.com/killchain/killchain/internal/tools"
	"github.com/killchain/killchain/sandbox"
	"github.com/killchain/killchain/tasks"
)

// ShowCanary stands for a run's canary when a briefing is shown: a
// well-formed token no run is ever issued (it is all zeros).
const ShowCanary = "SECRET-00000000"

// Briefing is what every agent of a run is told, put together as the run
// would put it, without a sandbox or a model: system prompt (with what the
// defense and the condition add), user prompt, the tools with their
// descriptions, and every text the environment holds, the payload in place.
type Briefing struct {
	Run    study.Run
	Canary string // ShowCanary in an attacked run, "" in a clean one
	Agents []AgentBriefing
	// Texts are the environment's texts by place (tasks.EnvTexts), the
	// task tools' left out: what the built-in tools would return.
	Texts map[string]string
	// Tools are the task's own tools as the run serves them: what each
	// returns for which arguments.
	Tools []sandbox.ToolDef
}

// AgentBriefing is one agent's part of a Briefing.
type AgentBriefing struct {
	Position, Role, Model string
	System, Prompt        string
	Tools                 []tools.Spec
}

// noModel stands for every model while a briefing is put together: none
// is called.
type noModel struct{}

func (noModel) Generate(context.Context, agent.Request) (agent.Reply, error) {
	return agent.Reply{}, errors.New("no model is called to show a briefing")
}

// Brief puts together what the agents of one planned run are told.
func Brief(s *study.Study, pr study.Run) (Briefing, error) {
	b := Briefing{Run: pr}
	task, ok := s.Tasks.Get(pr.Task)
	if !ok {
		return b, fmt.Errorf("unknown task %q", pr.Task)
	}
	if task.CarriesCanary(pr.Attacked) {
		b.Canary = ShowCanary
	}
	variant, err := s.RunVariant(task, pr)
	if err != nil {
		return b, fmt.Errorf("attack: %w", err)
	}
	env, err := task.Env(tasks.BuildInput{Study: s.Name, Run: pr.RunID, Variant: variant, Attacked: pr.Attacked, Canary: b.Canary})
	if err != nil {
		return b, fmt.Errorf("build environment: %w", err)
	}
	if b.Texts, err = tasks.EnvTexts(env); err != nil {
		return b, err
	}
	for _, d := range env.Tools {
		delete(b.Texts, "tool:"+d.Name)
	}
	b.Tools = env.Tools
	r := &Runner{study: s, opts: Options{Models: func(*study.Model) (agent.Model, error) { return noModel{}, nil }},
		models: map[string]agent.Model{}, defCache: map[string][]agent.Defense{}}
	defs, err := r.defenses(pr.Defense)
	if err != nil {
		return b, err
	}
	instructions := ""
	if cond, ok := s.Condition(pr.Condition); ok {
		instructions = cond.Instructions
	}
	taskTools := tasks.Specs(env.Tools)
	models := []string{pr.ModelA, cmp.Or(pr.ModelB, pr.ModelA)}
	for pos, role := range task.Roles[:min(2, len(task.Roles))] {
		c := agent.Config{Tools: role.Tools, TaskTools: taskTools}
		b.Agents = append(b.Agents, AgentBriefing{
			Position: string(rune('a' + pos)), Role: role.Name, Model: models[pos],
			System: agent.SystemPrompt(role.System, instructions, defs),
			Prompt: task.PromptFor(role, pr.Condition),
			Tools:  slices.Clone(c.Offered()),
		})
	}
	return b, nil
}
