package runner

import (
	"context"
	"errors"
	"path/filepath"

	"github.com/killchain/killchain/internal/agent"
	"github.com/killchain/killchain/internal/cost"
	"github.com/killchain/killchain/internal/results"
	"github.com/killchain/killchain/internal/study"
)

// ErrCostLimit is wrapped by the error Run returns when the study's cost
// limit stopped it: no new run started, the runs in flight finished and
// were recorded, and --resume continues it.
var ErrCostLimit = errors.New("cost limit reached")

// tokens is a usage as the cost package counts it.
func tokens(u agent.Usage) cost.Tokens {
	return cost.Tokens{Input: u.Input, CachedInput: u.CachedInput, CacheWrite: u.CacheWrite, Output: u.Output, Reasoning: u.Reasoning}
}

// price is a model block's price; nil for an unknown or unpriced model
// (scripted models cost nothing).
func (r *Runner) price(name string) *cost.Price {
	if m, ok := r.study.Model(name); ok {
		return m.Price
	}
	return nil
}

// usageCost is what one agent's calls cost: its own model's tokens at its
// price, and its defenses' classifier tokens at the classifier's.
func (r *Runner) usageCost(model, defenseName string, res agent.Result) float64 {
	usd := 0.0
	own := tokens(res.Usage).Sub(tokens(res.DefenseUsage))
	if p := r.price(model); p != nil {
		usd += p.Cost(own)
	}
	if d, ok := r.study.Defense(defenseName); ok && d.Classifier != "" {
		if p := r.price(d.Classifier); p != nil {
			usd += p.Cost(tokens(res.DefenseUsage))
		}
	}
	return usd
}

// costKey groups runs whose costs are alike, for the estimate of the next.
func costKey(pr study.Run) string {
	return cost.Key(pr.Task, pr.ModelA, pr.ModelB, pr.Condition)
}

// costLimit is the limit in force: the option's, else the study's.
func (r *Runner) costLimit() float64 {
	if r.opts.CostLimit > 0 {
		return r.opts.CostLimit
	}
	return r.study.CostLimit
}

// spentBefore is what a study folder's recorded runs cost: runs.jsonl and
// the superseded tries in attempts.jsonl, with each run's cost as an
// observation for the estimator.
func spentBefore(dir string, est *cost.Estimator) (float64, error) {
	spent := 0.0
	err := results.ReadRuns(filepath.Join(dir, results.RunsFile), func(run results.Run) error {
		spent += run.Cost
		if run.Error == "" && run.Cost > 0 {
			est.Observe(cost.Key(run.Task, run.ModelA, run.ModelB, run.Condition), run.Cost)
		}
		return nil
	})
	if err != nil {
		return 0, err
	}
	err = results.ReadAttempts(dir, func(run results.Run) error {
		spent += run.Cost
		return nil
	})
	if err != nil {
		return 0, err
	}
	err = results.ReadAttacker(dir, func(ar results.AttackerRound) error {
		spent += ar.Cost
		return nil
	})
	return spent, err
}

// attackerCost is what a round's asks cost at the attacker model's price.
func (r *Runner) attackerCost(model string, ar results.AttackerRound) float64 {
	p := r.price(model)
	if model == "" || p == nil {
		return 0
	}
	var t cost.Tokens
	for _, a := range ar.Asks {
		t.Input += a.InputTokens
		t.Output += a.OutputTokens
	}
	return p.Cost(t)
}

// priced reports whether any model of the study has a price.
func (r *Runner) priced() bool {
	for _, m := range r.study.Models {
		if m.Price != nil {
			return true
		}
	}
	return false
}

// runPriced reports whether a run's models (or its classifier) have a
// price: runs of scripted or unpriced models cost nothing and need no
// reservation.
func (r *Runner) runPriced(pr study.Run) bool {
	for _, name := range []string{pr.ModelA, pr.ModelB} {
		if name != "" && r.price(name) != nil {
			return true
		}
	}
	if d, ok := r.study.Defense(pr.Defense); ok && d.Classifier != "" {
		return r.price(d.Classifier) != nil
	}
	return false
}

// spend is a study's money while it runs: what it spent, the reservations
// of the runs in flight, and the estimate of the next run.
type spend struct {
	r      *Runner
	est    *cost.Estimator
	budget *cost.Budget
}

// newSpend starts from what the folder's recorded runs already cost.
func (r *Runner) newSpend() (*spend, error) {
	est := cost.NewEstimator(r.opts.CostPrior)
	spent, err := spentBefore(r.opts.Output, est)
	if err != nil {
		return nil, err
	}
	return &spend{r: r, est: est, budget: cost.NewBudget(r.costLimit(), spent)}, nil
}

// reserve books a run's estimated cost before it starts, waiting for the
// runs in flight when it could carry the study past its limit; false when
// it still could with none in flight, or when ctx ended. Unpriced runs
// reserve nothing.
func (s *spend) reserve(ctx context.Context, pr study.Run) (float64, bool) {
	priced := s.r.runPriced(pr)
	return s.budget.Reserve(func() float64 {
		if !priced {
			return 0
		}
		return s.est.Next(costKey(pr))
	}, func() bool { return ctx.Err() != nil })
}

// settle replaces a recorded run's reservation by its cost, and learns
// from it.
func (s *spend) settle(pr study.Run, est float64, run results.Run) {
	s.budget.Settle(est, run.Cost)
	if run.Error == "" && s.r.runPriced(pr) {
		s.est.Observe(costKey(pr), run.Cost)
	}
}
