package cli

import (
	"fmt"
	"path/filepath"

	"github.com/killchain/killchain/internal/cost"
	"github.com/killchain/killchain/internal/results"
	"github.com/killchain/killchain/internal/study"
)

// estimateRuns estimates the tokens and cost of a plan's runs
// (cost.EstimatePlan): from the finished runs of an earlier study folder
// (from) of the same tasks, else from the size of each agent's prompts.
func estimateRuns(s *study.Study, runs []study.Run, from string) (*cost.PlanEstimate, error) {
	var h *cost.History
	if from != "" {
		h = cost.NewHistory(from)
		err := results.ReadRuns(filepath.Join(from, results.RunsFile), func(r results.Run) error {
			// An errored run says nothing of what a model will spend.
			if r.Error == "" {
				h.Add(r.Task, r.ModelA, r.ModelB, r.Condition, cost.Tokens{Input: r.InputTokens, CachedInput: r.CachedInputTokens,
					CacheWrite: r.CacheWriteTokens, Output: r.OutputTokens, Reasoning: r.ReasoningTokens})
			}
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("--estimate-from: %w", err)
		}
	}
	models := map[string]cost.Model{}
	for _, m := range s.Models {
		if _, dup := models[m.Name]; !dup {
			models[m.Name] = cost.Model{Hosted: m.Hosted(), Thinking: m.Thinking || m.ReasoningEffort != "", Price: m.Price}
		}
	}
	planned := make([]cost.PlannedRun, len(runs))
	for i, pr := range runs {
		planned[i] = cost.PlannedRun{Task: pr.Task, ModelA: pr.ModelA, ModelB: pr.ModelB, Condition: pr.Condition, Agents: agentSizes(s, pr)}
	}
	return cost.EstimatePlan(models, s.MaxTurns, planned, h), nil
}

// agentSizes are the prompt sizes of a run's first two agents; none when
// its task is unknown.
func agentSizes(s *study.Study, pr study.Run) []cost.Agent {
	t, ok := s.Tasks.Get(pr.Task)
	if !ok {
		return nil
	}
	var out []cost.Agent
	for pos, role := range t.Roles[:min(len(t.Roles), 2)] {
		name := []string{pr.ModelA, pr.ModelB}[pos]
		if name == "" {
			name = pr.ModelA
		}
		out = append(out, cost.Agent{Model: name, PromptChars: len(role.System) + len(t.PromptFor(role, pr.Condition)), Tools: len(role.Tools)})
	}
	return out
}

// hostedModels reports whether a study has a model that is not scripted.
func hostedModels(s *study.Study) bool {
	for _, m := range s.Models {
		if m.Hosted() {
			return true
		}
	}
	return false
}
