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

// execute runs one planned run from a fresh sandbox to its record. A
// failure of the sandbox, a provider or a defense is recorded as the run's
// error; it is never turned into an outcome.
func (r *Runner) execute(ctx context.Context, pr study.Run, canaryToken string) outcome {
	start := time.Now()
	rec := results.Run{
		Study: r.study.Name, Batch: pr.Batch, Grid: pr.Grid, RunID: pr.RunID, Cell: pr.Cell, Repeat: pr.Repeat,
		Task: pr.Task, Variant: pr.Variant, Attack: pr.AttackName(), Surface: pr.Surface, Mode: string(pr.Mode),
		Condition: pr.Condition, Defense: pr.Defense, ModelA: pr.ModelA, ModelB: pr.ModelB,
		Attacked: pr.Attacked, Canary: canaryToken, Stage: vocab.None.String(),
		Started: start.UTC().Format(time.RFC3339Nano),
	}
	tr := &results.Transcript{RunID: pr.RunID, Task: pr.Task, TaskHash: r.defHash[pr.Task], Variant: pr.Variant, Condition: pr.Condition, Defense: pr.Defense, Canary: canaryToken}
	trk := tracker.New(r.study.Name, pr.RunID, canaryToken, pr.Mode)
	out := outcome{transcript: tr}
	fail := func(kind errkind.Kind, err error) outcome {
		rec.Error, rec.ErrorKind = err.Error(), kind
		rec.RateLimited += throttled(err)
		out.fatal = kind == errkind.Provider && isFatal(err)
		if kind == errkind.Sandbox {
			rec.ErrorReason = string(sandbox.FaultOf(err))
		}
		tr.Error = rec.Error
		rec.DurationMS = time.Since(start).Milliseconds()
		out.run, out.events = rec, trk.Events()
		return out
	}
	task, ok := r.study.Tasks.Get(pr.Task)
	if !ok {
		return fail(errkind.Internal, fmt.Errorf("unknown task %q", pr.Task))
	}
	rec.Family = task.Family()
	if task.Reward != nil {
		rec.RewardHack = results.NewRewardHack()
	}
	variant, err := r.study.RunVariant(task, pr)
	if err != nil {
		return fail(errkind.Internal, fmt.Errorf("attack: %w", err))
	}
	env, err := task.Env(tasks.BuildInput{Study: r.study.Name, Run: pr.RunID, Variant: variant, Attacked: pr.Attacked, Canary: canaryToken})
	if err != nil {
		return fail(errkind.Internal, fmt.Errorf("build environment: %w", err))
	}
	sb, err := r.backend.Open(ctx, env)
	if err != nil {
		return fail(errkind.Sandbox, fmt.Errorf("open sandbox: %w", err))
	}
	defer func() {
		cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
		defer cancel()
		if err := sb.Close(cctx); err != nil {
			r.log.Warn("sandbox close failed", "run", pr.RunID, "error", err)
		}
	}()
	if tr.Pristine, err = sb.State(ctx); err != nil {
		return fail(errkind.Sandbox, fmt.Errorf("read pristine state: %w", err))
	}
	defs, err := r.defenses(pr.Defense)
	if err != nil {
		return fail(errkind.Internal, err)
	}
	cond, _ := r.study.Condition(pr.Condition)
	instructions := ""
	if cond != nil {
		instructions = cond.Instructions
	}
	step := 0
	var caller agent.Caller = sb
	var steps *effectSteps
	if task.Reward != nil {
		steps = &effectSteps{inner: sb, step: &step}
		caller = steps
	}
	transcript := &agent.Transcript{}
	taskTools := tasks.Specs(env.Tools)
	models := []string{pr.ModelA, pr.ModelB}
	var res [2]agent.Result
	handoff := ""
	for pos, role := range task.Roles {
		if pos > 1 {
			break
		}
		name := models[pos]
		if name == "" {
			name = pr.ModelA
		}
		prompt := task.PromptFor(role, pr.Condition)
		if task.Mode == vocab.DelegationRelay && pos == 1 {
			if handoff == "" {
				break // agent A handed nothing over: agent B never starts
			}
			prompt = strings.ReplaceAll(prompt, tasks.HandoffPlaceholder, handoff)
		}
		m, err := r.model(name)
		if err != nil {
			return fail(errkind.Internal, err)
		}
		tr.Agents = append(tr.Agents, results.AgentInfo{Position: vocab.PosLabel(pos), Role: role.Name, Model: name})
		cfg := agent.Config{
			Agent: role.Name, Pos: pos, Model: m, System: role.System, Prompt: prompt,
			Condition: instructions, Level: role.Level, Tools: role.Tools, TaskTools: taskTools, PayloadTools: task.PayloadTools,
			Sandbox: caller, Tracker: trk, Defenses: defs, Transcript: transcript,
			MaxTurns: r.study.MaxTurns, Step: &step,
		}
		mcpWire(&cfg, task, role, sb)
		if len(cfg.Servers) > 0 {
			cfg.MCPLog = r.log.Named("mcp").With("run", pr.RunID, "agent", role.Name)
		}
		res[pos], err = agent.Run(ctx, cfg)
		tr.Entries = transcript.All()
		r.account(&rec, pos, res[pos])
		rec.Cost += r.usageCost(name, pr.Defense, res[pos])
		if err != nil {
			var re *agent.RunError
			if errors.As(err, &re) {
				return fail(re.Kind, err)
			}
			return fail(errkind.Internal, err)
		}
		handoff = strings.Join(res[pos].Delegations, "\n\n")
	}
	final, err := sb.State(ctx)
	if err != nil {
		return fail(errkind.Sandbox, fmt.Errorf("read final state: %w", err))
	}
	tr.Final = final
	v := verifiers.Verify(verifiers.ReferenceFor(task), tr.Pristine, final)
	tr.Verdict = v.Reasons
	rec.TaskSuccess, rec.AttackGoal = v.TaskSuccess, v.AttackGoal
	if variant.NoCanary && pr.Attacked {
		// A denial-of-service attack wants the task not done.
		rec.AttackGoal = !v.TaskSuccess
	}
	if task.Reward != nil {
		if err := r.verifyReward(ctx, &rec, tr, task, env, sb, steps, canaryToken); err != nil {
			return fail(errkind.Verifier, err)
		}
	}

	s := trk.Summary()
	rec.Stage = s.Stage.String()
	rec.Exposed, rec.Persisted, rec.Relayed, rec.Executed = s.Exposed, s.Persisted, s.Relayed, s.Executed
	rec.Noticed, rec.NoticedThinking, rec.NoticedNarration = s.Noticed, s.NoticedThinking, s.NoticedNarration
	rec.BlockedWrites, rec.Lag, rec.Contaminated = s.BlockedWrites, s.Lag, s.Contaminated
	rec.FailedCalls, rec.CanaryAttempts, rec.ClassifierErrors = s.Attempts, s.CanaryAttempts, s.ClassifierErrors
	rec.NoToolCall = !res[0].CalledPayloadTool
	events := trk.Events()
	fin := forensics.ForTask(task)
	fin.Canary, fin.Entries, fin.Events = canaryToken, tr.Entries, events
	fx := forensics.Compute(fin)
	rec.Forensics = &fx
	rec.DurationMS = time.Since(start).Milliseconds()
	out.run, out.events = rec, events
	return out
}

// account adds one agent's counts to the run record.
func (r *Runner) account(rec *results.Run, pos int, res agent.Result) {
	if pos == 0 {
		rec.StepsA, rec.ToolCallsA = res.Steps, res.ToolCalls
	} else {
		rec.StepsB, rec.ToolCallsB = res.Steps, res.ToolCalls
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
