package runner

import (
	"context"
	"fmt"
	"path/filepath"
	"sync"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/killchain/killchain/internal/attacker"
	"github.com/killchain/killchain/internal/attacks"
	"github.com/killchain/killchain/internal/cost"
	"github.com/killchain/killchain/internal/errkind"
	"github.com/killchain/killchain/internal/results"
	"github.com/killchain/killchain/internal/study"
	"github.com/killchain/killchain/internal/vocab"
)

// cell is one adaptive cell: an attacker's rounds on one task placement,
// model or pair, condition and defense. Its round 0 is the grid's attacks.
type cell struct {
	key   string
	atk   *study.Attacker
	runs0 []study.Run
	rank  int       // its place in the cells' interleaved order (schedule.go)
	ready sync.Once // it has queued its first round (turns.ready)
}

// adaptiveCells groups the selected runs of grids with an attacker into
// their cells, in plan order; the rest are returned as they are.
func (r *Runner) adaptiveCells(selected []study.Run) (flat []study.Run, cells []*cell) {
	byKey := map[string]*cell{}
	for _, pr := range selected {
		a, ok := r.study.Attacker(pr.Attacker)
		if !ok {
			flat = append(flat, pr)
			continue
		}
		c := byKey[pr.Loop()]
		if c == nil {
			c = &cell{key: pr.Loop(), atk: a}
			byKey[c.key] = c
			cells = append(cells, c)
		}
		c.runs0 = append(c.runs0, pr)
	}
	return flat, cells
}

// rounds is what the adaptive cells share while they run.
type rounds struct {
	// rec records the rounds' runs as the plan's are, with a progress of
	// its own whose total is the most runs the cells can record.
	rec    recorder
	turns  *turns // the study's concurrency, shared by every cell's runs
	done   map[string]results.Run
	logged map[string]map[int]results.AttackerRound

	mu sync.Mutex // the attacker file
}

// runCells runs the adaptive cells, each its rounds in order, the cells
// side by side; every run goes through the normal run path (sandbox,
// tracker, verifier, retries) and at most the study's concurrency run at
// once. A resumed study finds each round's payloads in attacker.jsonl
// and its finished runs in runs.jsonl, and runs only what is missing.
func (r *Runner) runCells(ctx context.Context, cells []*cell, rec recorder) error {
	if len(cells) == 0 {
		return nil
	}
	rec.prog = nil
	st := &rounds{rec: rec, turns: newTurns(r.study.Concurrency, len(cells)),
		done: map[string]results.Run{}, logged: map[string]map[int]results.AttackerRound{}}
	byKey := map[string]*cell{}
	keys := make([]string, len(cells))
	for i, c := range cells {
		byKey[c.key], keys[i] = c, c.key
	}
	for i, k := range interleaveCells(r.study.Seed, keys, func(k string) study.Run { return byKey[k].runs0[0] }) {
		byKey[k].rank = i
	}
	err := results.ReadRuns(filepath.Join(r.opts.Output, results.RunsFile), func(run results.Run) error {
		if run.Adaptive != nil {
			st.done[run.RunID] = run
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("resume rounds: %w", err)
	}
	err = results.ReadAttacker(r.opts.Output, func(ar results.AttackerRound) error {
		if st.logged[ar.Loop] == nil {
			st.logged[ar.Loop] = map[int]results.AttackerRound{}
		}
		st.logged[ar.Loop][ar.Round] = ar
		return nil
	})
	if err != nil {
		return fmt.Errorf("resume rounds: %w", err)
	}
	if r.opts.Progress != nil {
		// The most runs the cells can record: round 0 and every round full.
		bound := 0
		for _, c := range cells {
			reps := 1
			if g, ok := r.study.Grid(c.runs0[0].Grid); ok {
				reps = g.Repeats
			}
			bound += len(c.runs0) + c.atk.Rounds*c.atk.Payloads*reps
		}
		st.rec.prog = NewProgress(r.opts.Progress, bound)
		defer st.rec.prog.Finish()
	}
	g, gctx := errgroup.WithContext(ctx)
	for _, c := range cells {
		g.Go(func() error {
			// A cell that ends before it queues its first round lets
			// the others start.
			defer c.ready.Do(st.turns.ready)
			return r.runCell(gctx, c, st)
		})
	}
	return g.Wait()
}

// proposer builds a cell's attacker.
func (r *Runner) proposer(c *cell) (attacker.Proposer, error) {
	if c.atk.Model == "" {
		encs := c.atk.Encodings
		if t, ok := r.study.Tasks.Get(c.runs0[0].Task); ok {
			if own, ok := t.Variant(c.runs0[0].Placed); ok && own.Spoken {
				encs = []string{""} // an audio clip speaks clear text only
			}
		}
		return &attacker.Reference{Seed: r.study.LoopSeed(c.key), Families: c.atk.Families, Encodings: encs}, nil
	}
	m, err := r.model(c.atk.Model)
	if err != nil {
		return nil, fmt.Errorf("attacker %s: %w", c.atk.Name, err)
	}
	return &attacker.Model{Model: m, Asks: c.atk.Asks}, nil
}

// runCell runs one cell's rounds: round 0, then each round the attacker
// proposes from what its feedback reveals of the rounds before.
func (r *Runner) runCell(ctx context.Context, c *cell, st *rounds) error {
	log := r.log.With("cell", c.key, "attacker", c.atk.Name)
	prop, err := r.proposer(c)
	if err != nil {
		return err
	}
	mode, err := attacker.ParseMode(c.atk.Feedback)
	if err != nil {
		return err
	}
	run0 := c.runs0[0]
	task, ok := r.study.Tasks.Get(run0.Task)
	if !ok {
		return fmt.Errorf("cell %s: unknown task %q", c.key, run0.Task)
	}
	goal, surface := study.AttackerGoal(task, run0.Placed)
	var payloads []attacker.Payload
	for _, pr := range c.runs0 {
		if len(payloads) > 0 && payloads[len(payloads)-1].ID == pr.Payload {
			continue
		}
		if pr.Planted == nil {
			return fmt.Errorf("cell %s: run %s plants no parsed attack", c.key, pr.RunID)
		}
		payloads = append(payloads, attacker.FromAttack(*pr.Planted))
	}
	runs := c.runs0
	var hist []attacker.Round
	spent, paid, lastCost := 0, 0.0, 0.0
	for round := 0; round <= c.atk.Rounds; round++ {
		if round > 0 {
			ar, ok := st.logged[c.key][round]
			if !ok {
				if st.rec.money.budget.Reached() {
					// The study's cost limit: no new round, the cell is
					// continued by --resume.
					return nil
				}
				// "cost" when the attacker's cost budget is spent, "budget"
				// when its token budget is: the cell stops before this round.
				stop := ""
				switch {
				case c.atk.MaxCost > 0 && paid >= c.atk.MaxCost:
					stop = "cost"
				case c.atk.MaxTokens > 0 && spent >= c.atk.MaxTokens:
					stop = "budget"
				}
				if stop != "" {
					ar = results.AttackerRound{Loop: c.key, Grid: run0.Grid, Attacker: c.atk.Name, Feedback: c.atk.Feedback, Round: round, Stopped: stop}
					log.Warn("cell stopped: the attacker's budget is spent", "round", round, "stopped", stop,
						"tokens", spent, "max_tokens", c.atk.MaxTokens, "cost", cost.Dollars(paid), "max_cost", cost.Dollars(c.atk.MaxCost))
					st.rec.count(func(s *Summary) { s.Stopped++ })
					return st.append(r.opts.Output, ar)
				}
				// The attacker's calls are booked like a run's, at what the
				// cell's last round cost, so the study's limit stops them too.
				est, ok := st.rec.money.budget.Reserve(func() float64 { return lastCost }, func() bool { return ctx.Err() != nil })
				if !ok {
					return nil // the cost limit, or interrupted: --resume goes on
				}
				p, perr := prop.Propose(ctx, attacker.Turn{Round: round, Payloads: c.atk.Payloads, Mode: mode, Goal: goal, Surface: surface, History: hist})
				ar = roundRecord(c, run0.Grid, round, p)
				ar.Cost = r.attackerCost(c.atk.Model, ar)
				st.rec.money.budget.Settle(est, ar.Cost)
				lastCost = ar.Cost
				if ctx.Err() != nil {
					return nil // interrupted: the round is proposed again on resume
				}
				if isFatal(perr) {
					// A refused key or an unknown model: no round of any cell
					// could be proposed. The round is not logged, so a resume
					// asks again once it is fixed.
					return &FatalError{Run: fmt.Sprintf("round %d of %s (attacker %s)", round, c.key, c.atk.Name), Err: perr}
				}
				if perr != nil {
					ar.Error = perr.Error()
				} else if len(p.Payloads) < c.atk.Payloads {
					ar.Error = fmt.Sprintf("%d of %d payloads after %d asks", len(p.Payloads), c.atk.Payloads, len(p.Asks))
				}
				if scrub := r.opts.Scrub; scrub != nil {
					ar.Error = scrub(ar.Error)
					for i := range ar.Asks {
						ar.Asks[i].Problem, ar.Asks[i].Reply = scrub(ar.Asks[i].Problem), scrub(ar.Asks[i].Reply)
					}
				}
				if err := st.append(r.opts.Output, ar); err != nil {
					return err
				}
			}
			if ar.Stopped != "" {
				log.Info("cell stopped earlier", "round", round, "stopped", ar.Stopped)
				st.rec.count(func(s *Summary) { s.Stopped++ })
				return nil
			}
			spent += ar.Tokens()
			paid += ar.Cost
			if payloads, runs, err = r.roundRuns(run0, ar); err != nil {
				return err
			}
			if ar.Error != "" {
				log.Warn("attacker error", "round", round, "error", ar.Error)
			}
		}
		recs, err := r.runRound(ctx, c, st, runs)
		if err != nil || ctx.Err() != nil {
			return err
		}
		if st.rec.money.budget.Reached() {
			// Some of the round's runs did not start: the cell waits for
			// --resume rather than learning from half a round.
			return nil
		}
		var res []attacker.Result
		for _, rec := range recs {
			if rec.Error == "" && rec.Adaptive != nil {
				res = append(res, resultOf(rec))
			}
		}
		hist = append(hist, attacker.Round{Round: round, Payloads: payloads, Observations: attacker.Observe(mode, payloads, res)})
	}
	return nil
}

// roundRecord is a proposal as attacker.jsonl keeps it.
func roundRecord(c *cell, grid string, round int, p attacker.Proposal) results.AttackerRound {
	ar := results.AttackerRound{Loop: c.key, Grid: grid, Attacker: c.atk.Name, Feedback: c.atk.Feedback, Round: round, Asked: c.atk.Payloads,
		Payloads: []results.AttackerPayload{}}
	for _, pl := range p.Payloads {
		ar.Payloads = append(ar.Payloads, results.AttackerPayload(pl))
	}
	for _, a := range p.Asks {
		ar.Asks = append(ar.Asks, results.AttackerAsk{Prompt: a.Prompt, Reply: a.Reply, InputTokens: a.Usage.Input, OutputTokens: a.Usage.Output, Problem: a.Problem})
	}
	return ar
}

// roundRuns plans a logged round's runs: one per payload and repeat, and
// one per missing payload and repeat that is an attacker error.
func (r *Runner) roundRuns(run0 study.Run, ar results.AttackerRound) ([]attacker.Payload, []study.Run, error) {
	var payloads []attacker.Payload
	var ids, parents []string
	var atks []attacks.Attack
	for _, p := range ar.Payloads {
		pl := attacker.Payload(p)
		a, err := pl.Attack()
		if err != nil {
			return nil, nil, err
		}
		payloads = append(payloads, pl)
		ids, parents, atks = append(ids, p.ID), append(parents, p.Parent), append(atks, a)
	}
	runs, err := r.study.RoundRuns(run0, ar.Round, ids, parents, atks)
	if err != nil {
		return nil, nil, err
	}
	var missing []string
	for i := len(ar.Payloads); i < ar.Asked; i++ {
		missing = append(missing, fmt.Sprintf("r%d.%d", ar.Round, i+1))
	}
	none := make([]attacks.Attack, len(missing))
	for i := range none {
		none[i] = attacks.Attack{Family: attacks.Family{Name: "adaptive", Goal: attacks.GoalCanary}}
	}
	failed, err := r.study.RoundRuns(run0, ar.Round, missing, make([]string, len(missing)), none)
	if err != nil {
		return nil, nil, err
	}
	for i := range failed {
		failed[i].Planted = nil // marks a run no payload exists for
	}
	return payloads, append(runs, failed...), nil
}

// runRound runs a round's runs that are not finished yet, side by side
// within the study's concurrency, and returns every run's record.
func (r *Runner) runRound(ctx context.Context, c *cell, st *rounds, runs []study.Run) ([]results.Run, error) {
	recs := make([]results.Run, len(runs))
	g, gctx := errgroup.WithContext(ctx)
	for i, pr := range runs {
		if prev, ok := st.done[pr.RunID]; ok && (prev.Error == "" || !r.reruns(kindOf(prev))) {
			recs[i] = prev
			st.rec.count(func(s *Summary) { s.Skipped++ })
			continue
		}
		// Queued now, in order: the round's runs wait in line by round,
		// place in the round and cell (turns.go).
		tk := st.turns.queue(priority{round: pr.Round, wave: i, cell: c.rank})
		g.Go(func() error {
			if !tk.wait(gctx) {
				return nil
			}
			defer st.turns.release()
			rec, err := r.roundRun(gctx, c, st, pr)
			recs[i] = rec
			return err
		})
	}
	c.ready.Do(st.turns.ready)
	return recs, g.Wait()
}

// roundRun runs and records one run of a round; a run without payload is
// recorded as an attacker error, never started.
func (r *Runner) roundRun(ctx context.Context, c *cell, st *rounds, pr study.Run) (results.Run, error) {
	ad := &results.Adaptive{Round: pr.Round, Attacker: c.atk.Name, Feedback: c.atk.Feedback, Payload: pr.Payload, Parent: pr.Parent}
	why := ""
	switch {
	case pr.Round > 0 && pr.Planted == nil:
		why = "attacker gave no usable payload for this run's slot of its round"
	case pr.Round > 0 && len(pr.Planted.Family.Template) > attacker.MaxPayload:
		// Proposals are bounded; a payload past the bound would not be
		// delivered whole, and its run would read as a resisted attack.
		why = fmt.Sprintf("the attacker's payload is %d bytes; a run plants at most %d", len(pr.Planted.Family.Template), attacker.MaxPayload)
	}
	if why != "" {
		rec := results.Run{Study: r.study.Name, Batch: pr.Batch, Grid: pr.Grid, RunID: pr.RunID, Cell: pr.Cell, Repeat: pr.Repeat,
			Task: pr.Task, Variant: pr.Variant, Attack: "adaptive", Surface: pr.Surface, Mode: string(pr.Mode),
			Condition: pr.Condition, Defense: pr.Defense, ModelA: pr.ModelA, ModelB: pr.ModelB, Attacked: true,
			Stage: vocab.None.String(), Started: time.Now().UTC().Format(time.RFC3339Nano), Attempts: 1,
			Error: why, ErrorKind: errkind.Attacker, Adaptive: ad}
		if task, ok := r.study.Tasks.Get(pr.Task); ok {
			rec.Family = task.Family()
		}
		if err := results.Write[vocab.Event](st.rec.w, rec, nil, &results.Transcript{RunID: pr.RunID, Task: pr.Task, Variant: pr.Variant,
			Condition: pr.Condition, Defense: pr.Defense, Error: rec.Error}); err != nil {
			return rec, fmt.Errorf("record %s: %w", pr.RunID, err)
		}
		st.rec.count(func(s *Summary) { s.Ran++; s.Errors++; s.Rounds++; s.AttackerErrors++ })
		if st.rec.prog != nil {
			st.rec.prog.Done(true)
		}
		return rec, nil
	}
	est, ok := st.rec.money.reserve(ctx, pr)
	if !ok {
		// The study's cost limit: the run is not started, nor recorded.
		return results.Run{}, nil
	}
	run, _, err := r.runReserved(ctx, &st.rec, pr, est, ad, nil)
	return run, err
}

func (st *rounds) append(dir string, ar results.AttackerRound) error {
	st.mu.Lock()
	defer st.mu.Unlock()
	return results.AppendAttacker(dir, ar)
}

// kindOf is a recorded run's error kind; an errored line naming none
// counts as internal.
func kindOf(run results.Run) errkind.Kind {
	if run.ErrorKind == "" {
		return errkind.Internal
	}
	return run.ErrorKind
}

// resultOf is what a finished run achieved, for the attacker's feedback.
func resultOf(run results.Run) attacker.Result {
	return attacker.Result{
		Payload: run.Adaptive.Payload, AttackGoal: run.AttackGoal, Stage: run.Stage,
		Relay:      run.Mode == string(vocab.MemoryRelay) || run.Mode == string(vocab.DelegationRelay),
		Delegation: run.Mode == string(vocab.DelegationRelay), NoToolCall: run.NoToolCall,
		Blocked: run.BlockedCalls > 0, Filtered: run.BlockedWrites > 0,
	}
}
