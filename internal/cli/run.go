package cli

import (
	"errors"
	"fmt"
	"os"

	"path/filepath"
	"sort"
	"strings"

	"github.com/hashicorp/go-hclog"

	"github.com/spf13/cobra"

	"github.com/killchain/killchain/internal/agent"
	"github.com/killchain/killchain/internal/cost"
	"github.com/killchain/killchain/internal/errkind"
	"github.com/killchain/killchain/internal/models"
	"github.com/killchain/killchain/internal/models/scripted"
	"github.com/killchain/killchain/internal/plural"
	"github.com/killchain/killchain/internal/results"
	"github.com/killchain/killchain/internal/secrets"
	"github.com/killchain/killchain/internal/study"
	"github.com/killchain/killchain/runner"
)

func newRunCmd(g *globals) *cobra.Command {
	var (
		output  string
		resume  bool
		sandbox string
		quiet   bool
		subset  selectFlags
		gf      gateFlags
		rerun   []string
		limit   float64
	)
	cmd := &cobra.Command{
		Use:   "run [--output DIR] [--resume] [--tasks …] [--sample N] [--junit FILE] [--baseline DIR] FILE|DIR",
		Short: "Run a study: every run in its own sandbox, results written as they finish",
		Long: `run expands the study into runs and executes them with the study's
concurrency, each in a fresh sandbox with its own canary. Finished runs are
appended to DIR/runs.jsonl, DIR/events.jsonl and DIR/transcripts/ as they end,
so Ctrl-C keeps every finished run.

--resume finishes an interrupted study: it runs the selected runs that are
missing or failed for the infrastructure (sandbox, provider, verifier,
defense, internal errors), and refuses if the study file changed the plan.
Truncated and refused runs are the model's own replies under the study's
settings: running them until they pass would resample the model, so they are
left as they are (the summary says how many) unless --rerun names them. An
errored run stays in runs.jsonl, counted by every reader, until a resume runs
it again; its errored line then moves to DIR/attempts.jsonl. A resume first
drops what a killed process left of unfinished runs, so each run has one line
in runs.jsonl and its events once in events.jsonl.

A study whose tasks need what the sandbox cannot do (audio_inject needs
audio, which --sandbox local lacks) is refused before anything runs, unless
the subset leaves those tasks out. Give it the study folder (its study.hcl is
used) or the study file with --output.

` + selectionHelp + `

manifest.json records the subset the latest start or resume ran (its flags,
and how many runs it kept) under "selection"; planned_runs and plan_hash stay
the full study's.

When the study ends, its thresholds are judged on the folder's runs.jsonl
(see killchain gate).

--cost-limit DOLLARS (or the study's cost_limit) starts no run that could
carry the study's cost past the limit: the runs in flight finish and are
recorded, the study exits 3, and --resume continues it (with a higher
limit). A 401, 403 or 404 from a provider (a refused key, a model the
server lacks) stops the study at once, never retried, naming the key's
variable or the model; see docs/cost.md.

Progress goes to stderr: a bar on a terminal (log lines print above it),
otherwise a line every few seconds and one at the end; -q turns it off. The
summary line goes to stdout. Ctrl-C stops the study, keeps every finished run
and exits 130; docs/studies.md and docs/results.md describe the study file
and the folder.

` + gateHelp,
		Example: `  killchain run hcl/smoke.hcl
  killchain run --sandbox local --tasks memory_poison,tool_poison --sample 40 --output runs/try hcl/smoke.hcl
  killchain run --resume runs/smoke
  killchain run --junit ci/junit.xml --baseline runs/ci-main hcl/ci.hcl`,
		Args: argsBetween(1, 1),
		RunE: func(cmd *cobra.Command, args []string) error {
			tuneStudyGC()
			ctx := cmd.Context()
			file := args[0]
			if fi, err := os.Stat(file); err == nil && fi.IsDir() {
				if !resume {
					return usagef("%s is a folder: give a study file, or --resume to finish the study in it", file)
				}
				if output == "" {
					output = file
				}
				file = filepath.Join(file, results.StudyFile)
			}
			s, sel, _, runs, err := loadPlan(cmd, g, file, sandbox, &subset, true)
			if err != nil {
				return err
			}
			if err := gf.check(); err != nil {
				return err
			}
			secrets := secrets.New()
			log := g.logger(secrets)
			if err := preflight(ctx, s); err != nil {
				return err
			}
			choice, err := chooseBackend(s)
			if err != nil {
				return err
			}
			reruns, err := rerunKinds(rerun)
			if err != nil {
				return err
			}
			be, err := choice.open(ctx, g, log)
			if err != nil {
				return err
			}
			defer be.close()
			opts := runner.Options{Output: output, Resume: resume, Backend: be.Backend, Models: modelFactory(log, secrets, s),
				Scrub: secrets.Scrub, Logger: log, Manifest: be.manifest, Selection: sel, Rerun: reruns, CostLimit: limit}
			if limit < 0 {
				return usagef("--cost-limit %g: want a number of dollars above 0", limit)
			}
			if !quiet {
				// A bar when stderr is a terminal, lines otherwise.
				opts.Progress = g.stderr.bar()
			}
			if unpriced := unpricedUnderLimit(s, runs, limit); len(unpriced) > 0 {
				fmt.Fprintf(g.stderr, "killchain: the cost limit cannot stop the runs of %s: no price, so they are recorded at $0; add a price block or name them in a pricing file (docs/cost.md)\n",
					strings.Join(unpriced, ", "))
			}
			if est, err := estimateRuns(s, runs, ""); err == nil {
				// The first runs of a study with a cost limit reserve this
				// much each, until runs of their kind have cost something.
				opts.CostPrior = est.PerRun()
			}
			r, err := runner.New(s, opts)
			if err != nil {
				return err
			}
			sum, err := r.Run(ctx)
			var fatal *runner.FatalError
			switch {
			case errors.Is(err, runner.ErrCostLimit):
				fmt.Fprintf(g.stdout, "study %s: %s; %d ran, %s → %s\n", s.Name, sum.CostStopped, sum.Ran, plural.Count(sum.Errors, "error"), sum.Output)
				if sum.Spent == 0 {
					// nothing measured yet: the run's cost was plan's guess
					fmt.Fprintln(g.stdout, "no priced run has finished, so the next run's cost is the estimate from prompt sizes that `killchain plan` prints, not a measurement")
				}
				fmt.Fprintf(g.stdout, "stopped at the cost limit: raise it and continue with `killchain run --resume --cost-limit DOLLARS %s`\n", sum.Output)
				return exitCode(exitCostLimit)
			case errors.As(err, &fatal):
				return fmt.Errorf("study %s stopped: no later run could succeed: %w; fix it, then `killchain run --resume %s`", s.Name, fatal, sum.Output)
			case err != nil:
				return err
			}
			retried := ""
			if sum.Retried > 0 {
				retried = fmt.Sprintf(", %d retried", sum.Retried)
			}
			errs := plural.Count(sum.Errors, "error")
			if sel != nil {
				fmt.Fprintf(g.stdout, "study %s: %d of %s selected (%s), %d already finished, %d ran, %s%s → %s\n",
					s.Name, sum.Selected, plural.Count(sum.Planned, "planned run"), sel, sum.Skipped, sum.Ran, errs, retried, sum.Output)
			} else {
				fmt.Fprintf(g.stdout, "study %s: %d planned, %d already finished, %d ran, %s%s → %s\n",
					s.Name, sum.Planned, sum.Skipped, sum.Ran, errs, retried, sum.Output)
			}
			if line := spendLine(s, sum); line != "" {
				fmt.Fprintln(g.stdout, line)
			}
			if line := adaptiveLine(sum); line != "" {
				fmt.Fprintln(g.stdout, line)
			}
			if len(sum.Left) > 0 {
				fmt.Fprintf(g.stdout, "left as they were: %s (the model's own replies; --rerun %s runs them again)\n",
					leftSummary(sum.Left), strings.Join(leftKinds(sum.Left), ","))
			}
			if sum.Canceled {
				resumeArgs := ""
				if sel != nil {
					resumeArgs = sel.String() + " "
				}
				fmt.Fprintf(g.stdout, "interrupted: finish it with `killchain run --resume %s%s`\n", resumeArgs, sum.Output)
				return exitCode(exitInterrupted)
			}
			if gf.wanted(s) {
				return runGate(g, sum.Output, s, gf)
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&output, "output", "", "study folder (default: the study's output)")
	cmd.Flags().BoolVar(&resume, "resume", false, "finish an interrupted study or a subset: run only missing or errored runs")
	cmd.Flags().StringVar(&sandbox, "sandbox", "", `sandbox backend, overriding the study: "docker", "local" or "kubernetes"`)
	addHostShellFlag(cmd)
	cmd.Flags().BoolVarP(&quiet, "quiet", "q", false, "no progress output")
	cmd.Flags().Float64Var(&limit, "cost-limit", 0, "stop starting runs when the next could bring the study's cost above this many dollars (overrides cost_limit; see docs/cost.md)")
	cmd.Flags().StringSliceVar(&rerun, "rerun", nil, "with --resume: also run again the runs that errored this way (truncated, refused)")
	subset.register(cmd)
	gf.add(cmd)
	return cmd
}

// rerunKinds reads --rerun: the model-behaviour error kinds a resume runs again.
func rerunKinds(names []string) ([]errkind.Kind, error) {
	var out []errkind.Kind
	for _, n := range names {
		k := errkind.Kind(strings.TrimSpace(n))
		if k != errkind.Truncated && k != errkind.Refused {
			return nil, fmt.Errorf("--rerun %q: want truncated or refused (a resume always runs the runs that failed for the infrastructure again)", n)
		}
		out = append(out, k)
	}
	return out, nil
}

// leftKinds lists the kinds of the runs a resume left, in errkind order.
func leftKinds(left map[errkind.Kind]int) []string {
	var out []string
	for _, k := range errkind.All {
		if left[k] > 0 {
			out = append(out, string(k))
		}
	}
	return out
}

// leftSummary is "2 truncated runs, 1 refused run".
func leftSummary(left map[errkind.Kind]int) string {
	var parts []string
	for _, k := range leftKinds(left) {
		parts = append(parts, plural.Count(left[errkind.Kind(k)], k+" run"))
	}
	return strings.Join(parts, ", ")
}

// modelFactory builds models from study blocks: scripted reference agents
// in-process, live providers through their drivers, which register every
// key they read with sec so that it can be scrubbed. A block without
// max_concurrency keeps as many calls in flight as the study keeps runs.
func modelFactory(log hclog.Logger, sec *secrets.Set, s *study.Study, opts ...models.Option) runner.ModelFactory {
	return func(m *study.Model) (agent.Model, error) {
		if m.Provider == study.ProviderScripted {
			return scripted.New(m.Policy)
		}
		return models.New(liveConfig(m, s), log, append([]models.Option{models.WithSecrets(sec)}, opts...)...)
	}
}

// liveConfig is a live model block's driver config within its study.
func liveConfig(m *study.Model, s *study.Study) models.Config {
	cfg := modelConfig(m)
	cfg.Concurrency = s.Concurrency
	return cfg
}

// unpricedUnderLimit names the hosted models without a price that the runs
// use (their agents, a pi_detector's classifier, an adaptive attacker), when
// a cost limit (--cost-limit, else the study's) is set: the limit cannot
// stop what they spend.
func unpricedUnderLimit(s *study.Study, runs []study.Run, flagLimit float64) []string {
	if flagLimit <= 0 && s.CostLimit <= 0 {
		return nil
	}
	var names []string
	seen := map[string]bool{}
	for _, r := range runs {
		used := []string{r.ModelA, r.ModelB}
		if d, ok := s.Defense(r.Defense); ok {
			used = append(used, d.Classifier)
		}
		if a, ok := s.Attacker(r.Attacker); ok {
			used = append(used, a.Model)
		}
		for _, n := range used {
			m, ok := s.Model(n)
			if !ok || seen[n] || !m.Hosted() || m.Price != nil {
				continue
			}
			seen[n] = true
			names = append(names, n)
		}
	}
	sort.Strings(names)
	return names
}

// spendLine is the summary's cost line: what the study spent in all, its
// limit, and the 429 answers this start met; "" for a study with no price, no limit
// and no rate limit.
func spendLine(s *study.Study, sum runner.Summary) string {
	priced := false
	for _, m := range s.Models {
		priced = priced || m.Price != nil
	}
	var parts []string
	if priced || sum.CostLimit > 0 {
		p := cost.Dollars(sum.Spent) + " spent"
		if sum.CostLimit > 0 {
			p += " of a " + cost.Dollars(sum.CostLimit) + " limit"
		}
		parts = append(parts, p)
	}
	if sum.RateLimited > 0 {
		p := plural.Count(sum.RateLimited, "rate-limit answer") + " (429)"
		if sum.Skipped > 0 {
			// what was spent is the folder's; the 429s are this start's
			p += " in this start"
		}
		parts = append(parts, p)
	}
	if len(parts) == 0 {
		return ""
	}
	return "cost: " + strings.Join(parts, ", ")
}

// adaptiveLine is the run summary's line about adaptive rounds, "" for a
// study without any: their runs, those without a payload (attacker errors,
// counted apart from the target's outcomes) and the cells a budget stopped.
func adaptiveLine(sum runner.Summary) string {
	if sum.Rounds == 0 && sum.Stopped == 0 {
		return ""
	}
	var b strings.Builder
	fmt.Fprintf(&b, "adaptive attacks: %s of the rounds the attackers proposed", plural.Count(sum.Rounds, "run"))
	if sum.AttackerErrors > 0 {
		fmt.Fprintf(&b, ", %d of them attacker errors (no usable payload: never started, in no rate)", sum.AttackerErrors)
	}
	if sum.Stopped > 0 {
		fmt.Fprintf(&b, "; %s stopped at the attacker's budget (max_tokens or max_cost)", plural.Count(sum.Stopped, "cell"))
	}
	fmt.Fprintf(&b, " (see %s)", results.AttackerFile)
	return b.String()
}
