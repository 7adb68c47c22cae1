package cli

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/killchain/killchain/internal/results"
	"github.com/killchain/killchain/internal/secrets"
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
	)
	cmd := &cobra.Command{
		Use:   "run [--output DIR] [--resume] [--tasks …] [--sample N] [--junit FILE] [--baseline DIR] FILE|DIR",
		Short: "Run a study: every run in its own sandbox, results written as they finish",
		Long: `run expands the study into runs and executes them with the study's
concurrency, each in a fresh sandbox with its own canary. Finished runs are
appended to DIR/runs.jsonl, DIR/events.jsonl and DIR/transcripts/ as they end,
so Ctrl-C keeps every finished run.

--resume finishes an interrupted study: it runs exactly the runs that are
missing or errored and refuses if the study file changed the plan. It first
compacts the folder: what a killed process left of unfinished runs is
dropped, and errored tries move to DIR/attempts.jsonl, so each run has one
line in runs.jsonl and its events once in events.jsonl.

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

` + gateHelp,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			file := args[0]
			if fi, err := os.Stat(file); err == nil && fi.IsDir() {
				if !resume {
					return fmt.Errorf("%s is a folder: give a study file, or --resume to finish the study in it", file)
				}
				if output == "" {
					output = file
				}
				file = filepath.Join(file, results.StudyFile)
			}
			s, sel, _, _, err := loadPlan(cmd, g, file, sandbox, &subset, true)
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
			be, extra, closeBackend, err := openBackend(ctx, s, g, log)
			if err != nil {
				return err
			}
			defer closeBackend()
			opts := runner.Options{Output: output, Resume: resume, Backend: be, Models: modelFactory(log, secrets), Scrub: secrets.Scrub, Logger: log, Manifest: extra, Selection: sel}
			if !quiet {
				// Main's stderr: a bar when it is a terminal, lines otherwise.
				opts.Progress = g.stderr
			}
			r, err := runner.New(s, opts)
			if err != nil {
				return err
			}
			sum, err := r.Run(ctx)
			if err != nil {
				return err
			}
			retried := ""
			if sum.Retried > 0 {
				retried = fmt.Sprintf(", %d retried", sum.Retried)
			}
			if sel != nil {
				fmt.Fprintf(g.stdout, "study %s: %d of %d planned runs selected (%s), %d already finished, %d ran, %d errors%s → %s\n",
					s.Name, sum.Selected, sum.Planned, sel, sum.Skipped, sum.Ran, sum.Errors, retried, sum.Output)
			} else {
				fmt.Fprintf(g.stdout, "study %s: %d planned, %d already finished, %d ran, %d errors%s → %s\n",
					s.Name, sum.Planned, sum.Skipped, sum.Ran, sum.Errors, retried, sum.Output)
			}
			if sum.Canceled {
				resumeArgs := ""
				if sel != nil {
					resumeArgs = sel.String() + " "
				}
				fmt.Fprintf(g.stdout, "interrupted: finish it with `killchain run --resume %s%s`\n", resumeArgs, sum.Output)
				return errSilent
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
	subset.register(cmd)
	gf.add(cmd)
	return cmd
}
