package cli

import (
	"fmt"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/killchain/killchain/internal/importer/agentbench"
	"github.com/killchain/killchain/internal/report"
	"github.com/killchain/killchain/internal/study"
)

func newValidateCmd(g *globals) *cobra.Command {
	return &cobra.Command{
		Use:   "validate FILE",
		Short: "Check a study file and print every problem with file:line:col",
		Long: `validate parses a study file and checks it: syntax, unknown model, task,
variant, condition and defense names, duplicate blocks and bad values. It prints
every problem in one pass and exits non-zero if any is an error.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if code := study.Validate(args[0], g.stderr); code != 0 {
				return errSilent
			}
			return nil
		},
	}
}

func newPlanCmd(g *globals) *cobra.Command {
	var (
		verbose bool
		listRun bool
		show    string
		sandbox string
		subset  selectFlags
	)
	cmd := &cobra.Command{
		Use:   "plan [--sandbox NAME] [--tasks …] [--sample N] [--show CELL] FILE",
		Short: "Print a study's cells and run counts without running anything",
		Long: `plan expands a study's grids into runs and prints the totals: per grid and
batch, per task, per model or writer→reader pair, per condition and defense.
With --cells it lists every cell with its run count, with --runs every run
id. Given a subset, it prints how many of the full plan's runs the subset
keeps and then the subset's totals. It warns (on stderr)
about models whose max_tokens leaves too little room beside their thinking:
replies cut by the token limit end as truncated errors, not outcomes.

It refuses a study whose tasks need what its sandbox backend (the study's, or
--sandbox) cannot do, as run would: audio_inject needs audio, which the
local backend lacks, unless the subset leaves those tasks out. For a study on
the kubernetes sandbox it says where the pods run and how each task's snapshot
image reaches the nodes (pushed to a registry, or imported).

` + showHelp + `

` + selectionHelp,
		Args: cobra.ExactArgs(1),
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
			if listRun {
				return writeRunIDs(g.stdout, runs)
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&verbose, "cells", false, "list every cell with its run count")
	cmd.Flags().BoolVar(&listRun, "runs", false, "list every run: its id, cell and repeat")
	cmd.Flags().StringVar(&show, "show", "", "print what each agent of the cells `CELL` names is told (a cell key, or a pattern with *)")
	subset.register(cmd)
	cmd.Flags().StringVar(&sandbox, "sandbox", "", `sandbox backend the study will run on, overriding the study: "docker", "local" or "kubernetes"`)
	return cmd
}

func newReportCmd(g *globals) *cobra.Command {
	var (
		importKind     string
		compare        bool
		inPaper        bool
		errorsAsErrors bool
		out            string
		noHTML         bool
	)
	cmd := &cobra.Command{
		Use:   "report DIR | report --import agentbench FILE [DIR] | report --compare A B",
		Short: "Write a study's tables, figures and HTML report",
		Long: `report reads DIR/runs.jsonl and DIR/events.jsonl (streaming) and writes
DIR/report/: report.md, one CSV per table, figures/*.svg and *.png, and a
self-contained report.html with a per-run view of thinking, narration, tool
calls and results, the canary highlighted at each stage.

Every rate carries k/n and its Wilson 95% interval. Errored runs are kept
apart from every rate; runs with no tool call are reported apart.

--import agentbench FILE [DIR] converts the original harness's runs.csv into a
study folder DIR (default runs/agentbench) in our run schema (its own labels kept beside ours) and
reports it, with an audit of the runs whose labels contradict each other or
our stage definitions. --in-paper keeps only the rows the paper used.

--compare A B puts two result sets side by side (per model ASR with intervals
and the difference) in --output (default A/compare).`,
		Args: cobra.RangeArgs(1, 2),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts := report.Options{NoHTML: noHTML, OutDir: out}
			switch {
			case importKind != "":
				if len(args) == 1 {
					args = append(args, filepath.Join("runs", importKind))
				}
				if importKind != agentbench.Harness {
					return fmt.Errorf("--import %q: want %s", importKind, agentbench.Harness)
				}
				err := agentbench.Convert(cmd.Context(), args[0], args[1], agentbench.Options{InPaperOnly: inPaper, ErrorsAsErrors: errorsAsErrors})
				if err != nil {
					return err
				}
				opts.Title = "import of " + filepath.Base(args[0]) + " (" + importKind + ")"
				if err := report.Write(args[1], opts); err != nil {
					return err
				}
				fmt.Fprintf(g.stdout, "imported %s into %s; wrote %s\n", args[0], args[1], reportDir(args[1], out))
			case compare:
				if len(args) != 2 {
					return fmt.Errorf("--compare needs two study folders")
				}
				dir := out
				if dir == "" {
					dir = filepath.Join(args[0], "compare")
				}
				if err := report.Compare(args[0], args[1], dir, report.Options{}); err != nil {
					return err
				}
				fmt.Fprintf(g.stdout, "wrote %s\n", filepath.Join(dir, "compare.md"))
			default:
				if len(args) != 1 {
					return fmt.Errorf("report takes one study folder (or --import / --compare)")
				}
				if err := report.Write(args[0], opts); err != nil {
					return err
				}
				fmt.Fprintf(g.stdout, "wrote %s\n", reportDir(args[0], out))
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&importKind, "import", "", `convert another harness's log first: "agentbench"`)
	cmd.Flags().BoolVar(&compare, "compare", false, "compare two study folders A and B")
	cmd.Flags().BoolVar(&inPaper, "in-paper", false, "with --import agentbench: keep only the rows the paper used")
	cmd.Flags().BoolVar(&errorsAsErrors, "errors-as-errors", false, "with --import agentbench: record the harness's failed runs as errors, not as outcomes (its paper counted them as outcomes)")
	cmd.Flags().StringVar(&out, "output", "", "where the report goes (default DIR/report)")
	cmd.Flags().BoolVar(&noHTML, "no-html", false, "skip report.html")
	return cmd
}

func reportDir(dir, out string) string {
	if out != "" {
		return out
	}
	return filepath.Join(dir, "report") + "/ (report.md, report.html, CSVs, figures/)"
}
