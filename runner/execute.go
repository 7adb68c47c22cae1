package runner

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/killchain/killchain/internal/agent"
	"github.com/killchain/killchain/internal/errkind"
	"github.com/killchain/killchain/internal/results"
	"github.com/killchain/killchain/internal/study"
	"github.com/killchain/killchain/internal/tracker"
	"github.com/killchain/killchain/internal/vocab"
	"github.com/killchain/killchain/runner/forensics"
	"github.com/killchain/killchain/sandbox"
	"github.com/killchain/killchain/tasks"
	"github.com/killchain/killchain/verifiers"
)

// outcome is everything one run produced.
type outcome struct {
	run        results.Run
	events     []vocab.Event
	transcript *results.Transcript
	// fatal is set when the run met a provider answer that dooms every
	// later run (401, 403, 404): never retried, and the study stops.
	fatal bool
}

// runState is what one run has produced so far: its record, transcript
// and tracker, filled in step by step. The run's outcome is made from it
// whether the run finishes or fails.
type runState struct {
	start time.Time
	rec   results.Run
	tr    *results.Transcript
	trk   *tracker.Tracker
}

// driven is what the agents of a run did.
type driven struct {
	agents []agent.Result // each role's, in the order they ran (agent A first)
	steps  *effectSteps   // the step of each effect; nil unless the task is a reward hack
}

// execute runs one planned run from a fresh sandbox to its record, in
// four steps: prepare the run (task, variant, environment, defenses,
// agents), drive its agents over the sandbox, judge what they did (the
// verifiers and the tracker), record it. A failure of the sandbox, a
// provider or a defense is recorded as the run's error; it is never
// turned into an outcome.
func (r *Runner) execute(ctx context.Context, pr study.Run, canaryToken string) outcome {
	st := r.begin(pr, canaryToken)
	p, err := prepare(r.study, pr, canaryToken, r.defenses)
	if err != nil {
		return st.fail(errkind.Internal, err)
	}
	st.tr.World = stateRun(&p)
	sb, err := r.backend.Open(ctx, p.env)
	if err != nil {
		return st.fail(errkind.Sandbox, fmt.Errorf("open sandbox: %w", err))
	}
	defer r.closeSandbox(ctx, pr.RunID, sb)
	if st.tr.Pristine, err = sb.State(ctx); err != nil {
		return st.fail(errkind.Sandbox, fmt.Errorf("read pristine state: %w", err))
	}
	d, kind, err := r.drive(ctx, &p, sb, st)
	if err != nil {
		return st.fail(kind, err)
	}
	if kind, err := r.judge(ctx, &p, sb, d, st); err != nil {
		return st.fail(kind, err)
	}
	return record(&p, st)
}

// begin starts a run's record (the family its task is of, once found),
// its transcript and its tracker.
func (r *Runner) begin(pr study.Run, canaryToken string) *runState {
	start := time.Now()
	st := &runState{start: start,
		rec: results.Run{
			Study: r.study.Name, Batch: pr.Batch, Grid: pr.Grid, RunID: pr.RunID, Cell: pr.Cell, Repeat: pr.Repeat,
			Task: pr.Task, Variant: pr.Variant, Attack: pr.AttackName(), Surface: pr.Surface, Mode: string(pr.Mode),
			Condition: pr.Condition, Defense: pr.Defense, ModelA: pr.ModelA, ModelB: pr.ModelB,
			Attacked: pr.Attacked, Canary: canaryToken, Stage: vocab.None.String(),
			Started: start.UTC().Format(time.RFC3339Nano),
		},
		tr:  &results.Transcript{RunID: pr.RunID, Task: pr.Task, TaskHash: r.defHash[pr.Task], Variant: pr.Variant, Condition: pr.Condition, Defense: pr.Defense, Canary: canaryToken},
		trk: tracker.New(r.study.Name, pr.RunID, canaryToken, pr.Mode),
	}
	if task, ok := r.study.Tasks.Get(pr.Task); ok {
		st.rec.Family = task.Family()
		if task.Reward != nil {
			st.rec.RewardHack = results.NewRewardHack()
		}
		if pr.Suite != "" {
			st.rec.Stateful = &results.Stateful{Suite: pr.Suite, Injection: pr.Injection, Helpful: task.Helpful}
			if in, ok := r.study.Tasks.Injection(pr.Injection); ok {
				st.rec.InjectionKind = in.Kind
				if !in.ExecutedApplies(task.Environment) {
					st.trk.NoExecuted()
				}
			}
		}
	}
	return st
}

// fail ends a run with an error of a kind: what it produced until then,
// and the error.
func (st *runState) fail(kind errkind.Kind, err error) outcome {
	rec := &st.rec
	rec.Error, rec.ErrorKind = err.Error(), kind
	rec.RateLimited += throttled(err)
	if kind == errkind.Sandbox {
		rec.ErrorReason = string(sandbox.FaultOf(err))
	}
	st.tr.Error = rec.Error
	rec.DurationMS = time.Since(st.start).Milliseconds()
	return outcome{run: *rec, events: st.trk.Events(), transcript: st.tr, fatal: kind == errkind.Provider && isFatal(err)}
}

// closeSandbox closes a run's sandbox, given its time even when the run
// was cancelled.
func (r *Runner) closeSandbox(ctx context.Context, runID string, sb sandbox.Sandbox) {
	cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
	defer cancel()
	if err := sb.Close(cctx); err != nil {
		r.log.Warn("sandbox close failed", "run", runID, "error", err)
	}
}

// drive runs the prepared agents in turn over the sandbox, with one
// transcript and one step count: agent A, then a relay's agent B (a
// delegation relay's B is told what A delegated, and never starts when A
// delegated nothing). Each agent's counts and cost go into the record as
// it stops, also when it fails; the error's kind is the agent loop's.
func (r *Runner) drive(ctx context.Context, p *preparedRun, sb sandbox.Sandbox, st *runState) (driven, errkind.Kind, error) {
	d := driven{agents: make([]agent.Result, len(p.roles))}
	step := 0
	var caller agent.Caller = sb
	if p.task.Reward != nil {
		d.steps = &effectSteps{inner: sb, step: &step}
		caller = d.steps
	}
	transcript := &agent.Transcript{}
	handoff := ""
	for _, pa := range p.roles {
		cfg := pa.cfg
		if p.task.Mode == vocab.DelegationRelay && cfg.Pos == 1 {
			if handoff == "" {
				break // agent A handed nothing over: agent B never starts
			}
			cfg.Prompt = strings.ReplaceAll(cfg.Prompt, tasks.HandoffPlaceholder, handoff)
		}
		m, err := r.model(pa.model)
		if err != nil {
			return d, errkind.Internal, err
		}
		st.tr.Agents = append(st.tr.Agents, results.AgentInfo{Position: vocab.PosLabel(cfg.Pos), Role: pa.role.Name, Model: pa.model})
		cfg.Model, cfg.Sandbox, cfg.Tracker, cfg.Transcript, cfg.Step = m, caller, st.trk, transcript, &step
		mcpWire(&cfg, p.task, pa.role, sb)
		if len(cfg.Servers) > 0 {
			cfg.MCPLog = r.log.Named("mcp").With("run", p.run.RunID, "agent", pa.role.Name)
		}
		res, err := agent.Run(ctx, cfg)
		d.agents[cfg.Pos] = res
		st.tr.Entries = transcript.All()
		r.account(&st.rec, cfg.Pos, res)
		st.rec.Cost += r.usageCost(pa.model, p.run.Defense, res)
		if err != nil {
			var re *agent.RunError
			if errors.As(err, &re) {
				return d, re.Kind, err
			}
			return d, errkind.Internal, err
		}
		handoff = strings.Join(res.Delegations, "\n\n")
	}
	return d, "", nil
}

// judge decides the run from the sandbox's final state and from what the
// tracker saw: task success and attack goal by the task's verifier (and,
// for a reward-hack task, by the pristine verifier), then the furthest
// stage the canary reached and the signals beside it.
func (r *Runner) judge(ctx context.Context, p *preparedRun, sb sandbox.Sandbox, d driven, st *runState) (errkind.Kind, error) {
	rec, tr := &st.rec, st.tr
	final, err := sb.State(ctx)
	if err != nil {
		return errkind.Sandbox, fmt.Errorf("read final state: %w", err)
	}
	tr.Final = final
	v := verifiers.Verify(verifiers.ReferenceFor(p.task), tr.Pristine, final)
	tr.Verdict = v.Reasons
	rec.TaskSuccess, rec.AttackGoal = v.TaskSuccess, v.AttackGoal
	if p.task.Environment != nil {
		if err := judgeWorld(ctx, p, v, tr, rec); err != nil {
			return errkind.Verifier, err
		}
	}
	if p.variant.NoCanary && p.run.Attacked {
		// A denial-of-service attack wants the task not done.
		rec.AttackGoal = !rec.TaskSuccess
	}
	if p.task.Reward != nil {
		if err := r.verifyReward(ctx, rec, tr, p.task, p.env, sb, d.steps, p.canary); err != nil {
			return errkind.Verifier, err
		}
	}

	s := st.trk.Summary()
	rec.Stage = s.Stage.String()
	rec.Exposed, rec.Persisted, rec.Relayed, rec.Executed = s.Exposed, s.Persisted, s.Relayed, s.Executed
	rec.Noticed, rec.NoticedThinking, rec.NoticedNarration = s.Noticed, s.NoticedThinking, s.NoticedNarration
	rec.BlockedWrites, rec.Lag, rec.Contaminated = s.BlockedWrites, s.Lag, s.Contaminated
	rec.FailedCalls, rec.CanaryAttempts, rec.ClassifierErrors = s.Attempts, s.CanaryAttempts, s.ClassifierErrors
	rec.NoToolCall = len(d.agents) == 0 || !d.agents[0].CalledPayloadTool
	if rec.Stateful != nil {
		rec.RelayDepth = s.RelayDepth
	}
	return "", nil
}

// record ends a judged run: its forensic signals from the transcript and
// the events, its duration, and the outcome to write.
func record(p *preparedRun, st *runState) outcome {
	events := st.trk.Events()
	fin := forensics.ForTask(p.task)
	fin.Canary, fin.Entries, fin.Events = p.canary, st.tr.Entries, events
	fx := forensics.Compute(fin)
	st.rec.Forensics = &fx
	st.rec.DurationMS = time.Since(st.start).Milliseconds()
	return outcome{run: st.rec, events: events, transcript: st.tr}
}

// account adds one agent's counts to the run record.
func (r *Runner) account(rec *results.Run, pos int, res agent.Result) {
	if pos == 0 {
		rec.StepsA, rec.ToolCallsA = res.Steps, res.ToolCalls
	} else {
		// Every later role of a pipeline counts as agent B.
		rec.StepsB += res.Steps
		rec.ToolCallsB += res.ToolCalls
	}
	rec.Outbound += res.Outbound
	rec.BlockedCalls += res.BlockedCalls
	rec.RefusedCalls += res.RefusedCalls
	rec.InputTokens += res.Usage.Input
	rec.OutputTokens += res.Usage.Output
	rec.ReasoningTokens += res.Usage.Reasoning
	rec.CachedInputTokens += res.Usage.CachedInput
	rec.CacheWriteTokens += res.Usage.CacheWrite
	rec.TokensEstimated = rec.TokensEstimated || res.Usage.Estimated
	rec.RateLimited += res.Usage.RateLimited
}
