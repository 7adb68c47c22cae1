package runner

import (
	"context"
	"errors"
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

// Brief puts together what the agents of one planned run are told: the
// run as execute prepares it, with no model built.
func Brief(s *study.Study, pr study.Run) (Briefing, error) {
	b := Briefing{Run: pr}
	if task, ok := s.Tasks.Get(pr.Task); ok && task.CarriesCanary(pr.Attacked) {
		b.Canary = ShowCanary
	}
	noClassifier := func(string) (agent.Model, error) { return noModel{}, nil }
	p, err := prepare(s, pr, b.Canary, func(name string) ([]agent.Defense, error) { return buildDefenses(s, name, noClassifier) })
	if err != nil {
		return b, err
	}
	if b.Texts, err = tasks.EnvTexts(p.env); err != nil {
		return b, err
	}
	for _, d := range p.env.Tools {
		delete(b.Texts, "tool:"+d.Name)
	}
	b.Tools = p.env.Tools
	for _, pa := range p.roles {
		b.Agents = append(b.Agents, AgentBriefing{
			Position: string(rune('a' + pa.cfg.Pos)), Role: pa.role.Name, Model: pa.model,
			System: agent.SystemPrompt(pa.cfg.System, pa.cfg.Condition, pa.cfg.Defenses),
			Prompt: pa.cfg.Prompt,
			Tools:  slices.Clone(pa.cfg.Offered()),
		})
	}
	return b, nil
}
