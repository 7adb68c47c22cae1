package cli

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/killchain/killchain/internal/study"
)

func newPlanCmd(g *globals) *cobra.Command {
	var (
		verbose bool
		listRun bool
		sandbox string
		show    string
		subset  selectFlags
		from    string
	)
	cmd := &cobra.Command{
		Use:   "plan [--sandbox NAME] [--tasks …] [--sample N] [--show CELL] FILE",
		Short: "Print a study's cells and run counts without running anything",
		Long: `plan expands a study's grids into runs and prints the totals: per grid and
batch, per task, per model or writer→reader pair, per condition and defense.
With --cells it lists every cell with its run count, with --runs every run
id. Given a subset, it prints how many of the full plan's runs the subset
keeps and then the subset's totals. It warns (on stderr) about models whose
max_tokens leaves too little room beside their thinking: replies cut by the
token limit end as truncated errors, not outcomes.

It refuses a study whose tasks need what its sandbox backend (the study's, or
--sandbox) cannot do, as run would: audio_inject needs audio, which the
local backend lacks, unless the subset leaves those tasks out. For a study on
the kubernetes sandbox it says where the pods run and how each task's snapshot
image reaches the nodes (pushed to a registry, or imported).

For a study with hosted models it prints an estimate of the tokens and cost
the runs will likely spend, marked as one and with its basis: from an earlier
study folder of the same tasks (--estimate-from DIR), else from the size of
each agent's prompts and the task's typical number of turns (docs/cost.md).

It reads FILE and prints on stdout; it writes nothing and reaches no sandbox
or model.

` + showHelp + `

` + selectionHelp,
		Example: `  killchain plan hcl/smoke.hcl
  killchain plan --cells --tasks memory_poison,tool_poison hcl/smoke.hcl
  killchain plan --sample 40 --runs hcl/ci.hcl
  killchain plan --show 'text_surfaces/memory_poison/direct/compliant/hack/*' hcl/smoke.hcl`,
		Args: argsBetween(1, 1),
		RunE: func(cmd *cobra.Command, args []string) error {
			s, sel, plan, runs, err := loadPlan(cmd, g, args[0], sandbox, &subset, true)
			if err != nil {
				return err
			}
			if show != "" {
				return writeBriefings(g.stdout, s, runs, show)
			}
			if sel != nil {
				fmt.Fprintf(g.stdout, "%s\n\n", selectedLine(sel, len(runs), len(plan)))
			}
			if s.Sandbox == "kubernetes" {
				fmt.Fprintf(g.stdout, "%s\n\n", kubePlanLine(s))
			}
			if err := study.WritePlan(g.stdout, runs, verbose); err != nil {
				return err
			}
			if err := s.WriteRounds(g.stdout, runs); err != nil {
				return err
			}
			if from != "" || hostedModels(s) {
				est, err := estimateRuns(s, runs, from)
				if err != nil {
					return err
				}
				est.Write(g.stdout, s.CostLimit)
				if note := adaptiveEstimateNote(runs); note != "" {
					fmt.Fprintln(g.stdout, note)
				}
			}
			if listRun {
				return writeRunIDs(g.stdout, runs)
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&verbose, "cells", false, "list every cell with its run count")
	cmd.Flags().StringVar(&from, "estimate-from", "", "estimate tokens and cost from the runs of an earlier study folder `DIR` of the same tasks (default: from prompt sizes)")
	cmd.Flags().BoolVar(&listRun, "runs", false, "list every run: its id, cell and repeat")
	cmd.Flags().StringVar(&show, "show", "", "print what each agent of the cells `CELL` names is told (a cell key, or a pattern with *)")
	subset.register(cmd)
	cmd.Flags().StringVar(&sandbox, "sandbox", "", `sandbox backend the study will run on, overriding the study: "docker", "local" or "kubernetes"`)
	addHostShellFlag(cmd)
	return cmd
}

// kubePlanLine is what plan prints about a kubernetes study's sandbox.
func kubePlanLine(s *study.Study) string {
	ns := s.Kubernetes.Namespace
	if ns == "" {
		ns = "killchain-<study> (one per study)"
	}
	line := fmt.Sprintf("sandbox kubernetes: pods in namespace %s; %s", ns, imageTransfer(s))
	if rc := s.Kubernetes.RuntimeClass; rc != "" {
		line += "; runtime class " + rc
	}
	return line
}

// adaptiveEstimateNote says what the estimate leaves out for a plan with
// adaptive cells (it prices the planned runs, round 0 only), "" for one
// without: a priced attacker's study read "total ~$0" before.
func adaptiveEstimateNote(runs []study.Run) string {
	for _, r := range runs {
		if r.Attacker != "" {
			return "  not counted: the adaptive rounds after round 0 (their runs, at most as above) and the attacker " +
				"models' own calls; an attacker's max_tokens or max_cost bounds its calls per cell (docs/adaptive.md)"
		}
	}
	return ""
}
