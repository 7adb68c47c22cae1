package cli

import (
	"fmt"
	"io"
	"path/filepath"
	"sort"
	"strings"

	"github.com/killchain/killchain/internal/cost"
	"github.com/killchain/killchain/internal/plural"
	"github.com/killchain/killchain/internal/results"
	"github.com/killchain/killchain/internal/study"
)

// Prompt-size estimate: what a conversation is assumed to hold beside the
// prompts the task gives. Every figure here is a rule of thumb, and plan
// says so.
const (
	estResultChars  = 1200 // one tool result
	estToolChars    = 300  // one tool's description and parameters
	estOutPerTurn   = 150  // output tokens of one turn without thinking
	estThinkPerTurn = 600  // thinking tokens of one turn of a thinking model
)

// estimate is plan's guess of a study's tokens and cost, per model
// (writer → reader pairs apart).
type estimate struct {
	basis  string
	models map[string]*estRow
	priced int // runs of priced models
	usd    float64
}

type estRow struct {
	runs   int
	tok    cost.Tokens
	usd    float64
	basis  string // how the model is priced
	priced bool
}

// perRun is the estimated cost of one run of a priced model, the prior a
// cost limit starts from.
func (e *estimate) perRun() float64 {
	if e.priced == 0 {
		return 0
	}
	return e.usd / float64(e.priced)
}

// runKey groups an earlier study's runs for an estimate.
func runKey(task, a, b, condition string) string { return task + "|" + a + "|" + b + "|" + condition }

// estimateRuns estimates the tokens and cost of runs: from the runs of an
// earlier study folder (from) of the same tasks, each run as the mean of
// the earlier runs of its task, models and condition (else of its task and
// condition, else of its task); else from the size of each agent's prompts
// and the task's typical number of turns.
func estimateRuns(s *study.Study, runs []study.Run, from string) (*estimate, error) {
	e := &estimate{models: map[string]*estRow{}}
	type acc struct {
		n   int
		tok cost.Tokens
	}
	var byKey, byTaskCond, byTask map[string]*acc
	if from != "" {
		byKey, byTaskCond, byTask = map[string]*acc{}, map[string]*acc{}, map[string]*acc{}
		seen := 0
		err := results.ReadRuns(filepath.Join(from, results.RunsFile), func(r results.Run) error {
			// An errored run, and a run that counted no token (a scripted
			// agent's), say nothing of what a hosted model will spend.
			if r.Error != "" || r.InputTokens+r.OutputTokens == 0 {
				return nil
			}
			seen++
			t := cost.Tokens{Input: r.InputTokens, CachedInput: r.CachedInputTokens, CacheWrite: r.CacheWriteTokens, Output: r.OutputTokens, Reasoning: r.ReasoningTokens}
			add := func(m map[string]*acc, k string) {
				if m[k] == nil {
					m[k] = &acc{}
				}
				m[k].n++
				m[k].tok.Add(t)
			}
			add(byKey, runKey(r.Task, r.ModelA, r.ModelB, r.Condition))
			add(byTaskCond, r.Task+"|"+r.Condition)
			add(byTask, r.Task)
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("--estimate-from: %w", err)
		}
		e.basis = fmt.Sprintf("the mean tokens of %s in %s of the same task, models and condition (else task and condition, else task), at this study's prices",
			plural.Count(seen, "finished run"), from)
		if seen == 0 {
			e.basis = fmt.Sprintf("%s (%s has no finished run that counted tokens; scripted agents count none)", promptBasis, from)
		}
	} else {
		e.basis = promptBasis
	}
	unmatched := 0 // runs of a task the earlier folder has no counted run of
	mean := func(a *acc) cost.Tokens {
		n := a.n
		return cost.Tokens{Input: a.tok.Input / n, CachedInput: a.tok.CachedInput / n, CacheWrite: a.tok.CacheWrite / n, Output: a.tok.Output / n, Reasoning: a.tok.Reasoning / n}
	}
	for _, pr := range runs {
		label := pr.ModelA
		if pr.ModelB != "" && pr.ModelB != pr.ModelA {
			label += " → " + pr.ModelB
		}
		row := e.models[label]
		if row == nil {
			row = &estRow{}
			e.models[label] = row
			row.basis, row.priced = priceOf(s, pr.ModelA, pr.ModelB)
		}
		row.runs++
		var tok cost.Tokens
		usd := 0.0
		if from != "" {
			var a *acc
			for _, try := range []*acc{byKey[runKey(pr.Task, pr.ModelA, pr.ModelB, pr.Condition)], byTaskCond[pr.Task+"|"+pr.Condition], byTask[pr.Task]} {
				if try != nil {
					a = try
					break
				}
			}
			switch {
			case a == nil && hostedRun(s, pr):
				// never a silent $0: estimate it from its prompts.
				unmatched++
				tok, usd = promptEstimate(s, pr)
			case a != nil:
				tok = mean(a)
				// runs.jsonl sums a run's tokens over its agents: a
				// pair's are priced at the writer's price.
				if m, ok := s.Model(pr.ModelA); ok && m.Price != nil {
					usd = m.Price.Cost(tok)
				}
			}
		} else {
			tok, usd = promptEstimate(s, pr)
		}
		if !row.priced {
			usd = 0
		}
		row.tok.Add(tok)
		row.usd += usd
		if row.priced {
			e.priced++
			e.usd += usd
		}
	}
	if unmatched > 0 && len(byTask) > 0 {
		e.basis += fmt.Sprintf("; %s of tasks it has no counted run of, from %s", plural.Count(unmatched, "run"), promptBasis)
	}
	return e, nil
}

// promptBasis is the basis of an estimate from prompt sizes.
var promptBasis = fmt.Sprintf("prompt sizes at about %d characters a token; per agent, one turn per tool it is offered plus one (at most max_turns), "+
	"each resending the conversation, with a %d-character result per call and %d output tokens per turn (%d more with thinking); at this study's prices",
	cost.CharsPerToken, estResultChars, estOutPerTurn, estThinkPerTurn)

// hostedRun reports whether a run has an agent of a hosted model.
func hostedRun(s *study.Study, pr study.Run) bool {
	for _, n := range []string{pr.ModelA, pr.ModelB} {
		if m, ok := s.Model(n); ok && m.Hosted() {
			return true
		}
	}
	return false
}

// priceOf says how the models of a run are priced, and whether any has a
// price.
func priceOf(s *study.Study, names ...string) (string, bool) {
	var parts []string
	priced := false
	for _, n := range names {
		if n == "" || slicesContains(parts, n) {
			continue
		}
		m, ok := s.Model(n)
		switch {
		case !ok:
		case !m.Hosted():
			parts = append(parts, n+": scripted: $0")
		case m.Price == nil:
			parts = append(parts, n+": no price")
		default:
			priced = true
			parts = append(parts, n+": "+m.Price.String())
		}
	}
	return strings.Join(parts, "; "), priced
}

func slicesContains(list []string, name string) bool {
	for _, p := range list {
		if strings.HasPrefix(p, name+": ") {
			return true
		}
	}
	return false
}

// promptEstimate estimates one run from its agents' prompt sizes.
func promptEstimate(s *study.Study, pr study.Run) (cost.Tokens, float64) {
	var total cost.Tokens
	usd := 0.0
	t, ok := s.Tasks.Get(pr.Task)
	if !ok {
		return total, 0
	}
	models := []string{pr.ModelA, pr.ModelB}
	for pos, role := range t.Roles {
		if pos > 1 {
			break
		}
		name := models[pos]
		if name == "" {
			name = pr.ModelA
		}
		m, ok := s.Model(name)
		if !ok || !m.Hosted() {
			continue
		}
		chars := len(role.System) + len(t.PromptFor(role, pr.Condition)) + estToolChars*len(role.Tools)
		turns := min(len(role.Tools)+1, s.MaxTurns)
		out := estOutPerTurn
		if m.Thinking || m.ReasoningEffort != "" {
			out += estThinkPerTurn
		}
		tok := cost.Conversation(chars, estResultChars, turns, out)
		if m.Thinking || m.ReasoningEffort != "" {
			tok.Reasoning = turns * estThinkPerTurn
		}
		total.Add(tok)
		if m.Price != nil {
			usd += m.Price.Cost(tok)
		}
	}
	return total, usd
}

// write prints the estimate, marked as one, with its basis.
func (e *estimate) write(w io.Writer, limit float64) {
	fmt.Fprintf(w, "\nestimate (not a measurement) of tokens and cost, from %s:\n", e.basis)
	names := make([]string, 0, len(e.models))
	for n := range e.models {
		names = append(names, n)
	}
	sort.Strings(names)
	unpriced := 0
	for _, n := range names {
		r := e.models[n]
		usd := "~" + cost.Dollars(r.usd)
		switch {
		case !r.priced && strings.Contains(r.basis, "no price"):
			usd, unpriced = "cost unknown", unpriced+r.runs
		case !r.priced:
			usd = "$0"
		}
		fmt.Fprintf(w, "  %-20s %s  ~%d input, ~%d output (~%d reasoning) tokens  %s  [%s]\n",
			n, plural.Count(r.runs, "run"), r.tok.Input, r.tok.Output, r.tok.Reasoning, usd, r.basis)
	}
	line := fmt.Sprintf("  total ~%s", cost.Dollars(e.usd))
	if unpriced > 0 {
		line += fmt.Sprintf(" for the priced models; %s of models without a price not counted (give them a price: docs/cost.md)", plural.Count(unpriced, "run"))
	}
	if limit > 0 {
		line += fmt.Sprintf(" (cost limit %s)", cost.Dollars(limit))
	}
	fmt.Fprintln(w, line)
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
