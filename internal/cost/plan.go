package cost

import (
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"

	"github.com/killchain/killchain/internal/plural"
)

// Prompt-size estimate: what a conversation is assumed to hold beside the
// prompts the task gives. Every figure here is a rule of thumb, and the
// estimate's basis says so.
const (
	estResultChars  = 1200 // one tool result
	estToolChars    = 300  // one tool's description and parameters
	estOutPerTurn   = 150  // output tokens of one turn without thinking
	estThinkPerTurn = 600  // thinking tokens of one turn of a thinking model
)

// promptBasis is the basis of an estimate from prompt sizes.
var promptBasis = fmt.Sprintf("prompt sizes at about %d characters a token; per agent, one turn per tool it is offered plus one (at most max_turns), "+
	"each resending the conversation, with a %d-character result per call and %d output tokens per turn (%d more with thinking); at this study's prices",
	CharsPerToken, estResultChars, estOutPerTurn, estThinkPerTurn)

// Model is what a plan's estimate knows of one of the study's models.
type Model struct {
	Hosted   bool   // false for a scripted agent, which costs nothing
	Thinking bool   // it thinks (thinking on, or a reasoning effort)
	Price    *Price // nil when it has none
}

// Agent is one agent of a planned run, as its prompts size it.
type Agent struct {
	Model       string
	PromptChars int // its system prompt and its prompt under the run's condition
	Tools       int // the tools its role is offered
}

// PlannedRun is one run of a plan, as its estimate sees it.
type PlannedRun struct {
	Task, ModelA, ModelB, Condition string
	// Agents are the run's first two agents; none when the task is unknown.
	Agents []Agent
}

// History is what an earlier study folder's finished runs counted, for a
// plan's estimate: their tokens by run kind (Key), by task and condition,
// and by task.
type History struct {
	source                    string
	runs                      int
	byKey, byTaskCond, byTask map[string]*tokenSum
}

type tokenSum struct {
	n   int
	tok Tokens
}

func (a *tokenSum) mean() Tokens {
	n := a.n
	return Tokens{Input: a.tok.Input / n, CachedInput: a.tok.CachedInput / n, CacheWrite: a.tok.CacheWrite / n, Output: a.tok.Output / n, Reasoning: a.tok.Reasoning / n}
}

// NewHistory returns an empty history of the study folder source.
func NewHistory(source string) *History {
	return &History{source: source, byKey: map[string]*tokenSum{}, byTaskCond: map[string]*tokenSum{}, byTask: map[string]*tokenSum{}}
}

// Add records the tokens of a finished run. A run that counted no token (a
// scripted agent's) says nothing of what a hosted model will spend: it is
// left out.
func (h *History) Add(task, modelA, modelB, condition string, t Tokens) {
	if t.Input+t.Output == 0 {
		return
	}
	h.runs++
	add := func(m map[string]*tokenSum, k string) {
		if m[k] == nil {
			m[k] = &tokenSum{}
		}
		m[k].n++
		m[k].tok.Add(t)
	}
	add(h.byKey, Key(task, modelA, modelB, condition))
	add(h.byTaskCond, task+"|"+condition)
	add(h.byTask, task)
}

// match returns the runs a planned run is estimated from: those of its
// kind, else of its task and condition, else of its task; nil when there
// are none.
func (h *History) match(pr PlannedRun) *tokenSum {
	for _, try := range []*tokenSum{h.byKey[Key(pr.Task, pr.ModelA, pr.ModelB, pr.Condition)], h.byTaskCond[pr.Task+"|"+pr.Condition], h.byTask[pr.Task]} {
		if try != nil {
			return try
		}
	}
	return nil
}

// basis says what an estimate from the history stands on.
func (h *History) basis() string {
	if h.runs == 0 {
		return fmt.Sprintf("%s (%s has no finished run that counted tokens; scripted agents count none)", promptBasis, h.source)
	}
	return fmt.Sprintf("the mean tokens of %s in %s of the same task, models and condition (else task and condition, else task), at this study's prices",
		plural.Count(h.runs, "finished run"), h.source)
}

// PlanEstimate is a plan's guess of a study's tokens and cost, per model
// (writer → reader pairs apart).
type PlanEstimate struct {
	// Basis says what the estimate stands on.
	Basis string
	// Models are the rows by model label.
	Models map[string]*PlanRow
	priced int     // runs of priced models
	usd    float64 // their cost
}

// PlanRow is one model's (or pair's) part of an estimate.
type PlanRow struct {
	Runs   int
	Tokens Tokens
	USD    float64
	Basis  string // how the model is priced
	Priced bool
}

// EstimatePlan estimates the tokens and cost of a plan's runs: from an
// earlier study folder's runs (h, when not nil) of the same tasks, each run
// as the mean of the earlier runs of its kind (else of its task and
// condition, else of its task); else, and for a hosted run of a task the
// history has no run of, from the size of each agent's prompts and its
// tools. models are the study's by name; maxTurns bounds an agent's turns.
func EstimatePlan(models map[string]Model, maxTurns int, runs []PlannedRun, h *History) *PlanEstimate {
	e := &PlanEstimate{Basis: promptBasis, Models: map[string]*PlanRow{}}
	if h != nil {
		e.Basis = h.basis()
	}
	unmatched := 0 // runs of a task the history has no counted run of
	for _, pr := range runs {
		label := pr.ModelA
		if pr.ModelB != "" && pr.ModelB != pr.ModelA {
			label += " → " + pr.ModelB
		}
		row := e.Models[label]
		if row == nil {
			row = &PlanRow{}
			e.Models[label] = row
			row.Basis, row.Priced = priceOf(models, pr.ModelA, pr.ModelB)
		}
		row.Runs++
		var tok Tokens
		usd := 0.0
		if h != nil {
			a := h.match(pr)
			switch {
			case a == nil && hostedRun(models, pr):
				// never a silent $0: estimate it from its prompts.
				unmatched++
				tok, usd = promptEstimate(models, maxTurns, pr)
			case a != nil:
				tok = a.mean()
				// runs.jsonl sums a run's tokens over its agents: a
				// pair's are priced at the writer's price.
				if m, ok := models[pr.ModelA]; ok && m.Price != nil {
					usd = m.Price.Cost(tok)
				}
			}
		} else {
			tok, usd = promptEstimate(models, maxTurns, pr)
		}
		if !row.Priced {
			usd = 0
		}
		row.Tokens.Add(tok)
		row.USD += usd
		if row.Priced {
			e.priced++
			e.usd += usd
		}
	}
	if unmatched > 0 && len(h.byTask) > 0 {
		e.Basis += fmt.Sprintf("; %s of tasks it has no counted run of, from %s", plural.Count(unmatched, "run"), promptBasis)
	}
	return e
}

// PerRun is the estimated cost of one run of a priced model, the prior a
// cost limit starts from.
func (e *PlanEstimate) PerRun() float64 {
	if e.priced == 0 {
		return 0
	}
	return e.usd / float64(e.priced)
}

// hostedRun reports whether a run has an agent of a hosted model.
func hostedRun(models map[string]Model, pr PlannedRun) bool {
	for _, n := range []string{pr.ModelA, pr.ModelB} {
		if m, ok := models[n]; ok && m.Hosted {
			return true
		}
	}
	return false
}

// priceOf says how the models of a run are priced, and whether any has a
// price.
func priceOf(models map[string]Model, names ...string) (string, bool) {
	var parts []string
	priced := false
	for i, n := range names {
		if n == "" || slices.Contains(names[:i], n) {
			continue
		}
		m, ok := models[n]
		switch {
		case !ok:
		case !m.Hosted:
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

// promptEstimate estimates one run from its agents' prompt sizes.
func promptEstimate(models map[string]Model, maxTurns int, pr PlannedRun) (Tokens, float64) {
	var total Tokens
	usd := 0.0
	for _, a := range pr.Agents {
		m, ok := models[a.Model]
		if !ok || !m.Hosted {
			continue
		}
		chars := a.PromptChars + estToolChars*a.Tools
		turns := min(a.Tools+1, maxTurns)
		out := estOutPerTurn
		if m.Thinking {
			out += estThinkPerTurn
		}
		tok := Conversation(chars, estResultChars, turns, out)
		if m.Thinking {
			tok.Reasoning = turns * estThinkPerTurn
		}
		total.Add(tok)
		if m.Price != nil {
			usd += m.Price.Cost(tok)
		}
	}
	return total, usd
}

// Write prints the estimate, marked as one, with its basis; limit is the
// cost limit in force (0: none).
func (e *PlanEstimate) Write(w io.Writer, limit float64) {
	fmt.Fprintf(w, "\nestimate (not a measurement) of tokens and cost, from %s:\n", e.Basis)
	names := make([]string, 0, len(e.Models))
	for n := range e.Models {
		names = append(names, n)
	}
	sort.Strings(names)
	unpriced := 0
	for _, n := range names {
		r := e.Models[n]
		usd := "~" + Dollars(r.USD)
		switch {
		case !r.Priced && strings.Contains(r.Basis, "no price"):
			usd, unpriced = "cost unknown", unpriced+r.Runs
		case !r.Priced:
			usd = "$0"
		}
		fmt.Fprintf(w, "  %-20s %s  ~%d input, ~%d output (~%d reasoning) tokens  %s  [%s]\n",
			n, plural.Count(r.Runs, "run"), r.Tokens.Input, r.Tokens.Output, r.Tokens.Reasoning, usd, r.Basis)
	}
	line := fmt.Sprintf("  total ~%s", Dollars(e.usd))
	if unpriced > 0 {
		line += fmt.Sprintf(" for the priced models; %s of models without a price not counted (give them a price: docs/cost.md)", plural.Count(unpriced, "run"))
	}
	if limit > 0 {
		line += fmt.Sprintf(" (cost limit %s)", Dollars(limit))
	}
	fmt.Fprintln(w, line)
}
