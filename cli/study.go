package cli

import (
	"fmt"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/killchain/killchain/report"
	"github.com/killchain/killchain/study"
	"github.com/killchain/killchain/tasks"
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
	var verbose bool
	cmd := &cobra.Command{
		Use:   "plan FILE",
		Short: "Print a study's cells and run counts without running anything",
		Long: `plan expands a study's grids into runs and prints the totals: per grid and
batch, per task, per model or writer→reader pair, per condition and defense.
With --cells it lists every cell with its run count.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			s, ok := study.LoadAndReport(args[0], g.stderr)
			if !ok {
				return errSilent
			}
			runs, err := s.Plan()
			if err != nil {
				return err
			}
			return study.WritePlan(g.stdout, runs, verbose)
		},
	}
	cmd.Flags().BoolVar(&verbose, "cells", false, "list every cell with its run count")
	return cmd
}

func newReportCmd(g *globals) *cobra.Command {
	return &cobra.Command{
		Use:   "report DIR",
		Short: "Write the tables of a study folder to DIR/report",
		Long: `report reads DIR/runs.jsonl and writes DIR/report/report.md and CSV tables:
ASR (Executed / attacked) per model or pair with Wilson 95% intervals, task
success on clean controls, the stage reached per task, attack goal beside
Executed, noticed counts, contamination and errors (kept apart from every rate).`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := report.Write(args[0], report.Options{}); err != nil {
				return err
			}
			fmt.Fprintf(g.stdout, "wrote %s/report/report.md\n", strings.TrimRight(args[0], "/"))
			return nil
		},
	}
}

func newTasksCmd(g *globals) *cobra.Command {
	return &cobra.Command{
		Use:   "tasks",
		Short: "List the scenarios with their mode, variants and surfaces",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			tw := tabwriter.NewWriter(g.stdout, 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "TASK\tMODE\tVARIANTS (surface)\tDESCRIPTION")
			names := tasks.Names()
			sort.Strings(names)
			for _, n := range names {
				t, _ := tasks.Get(n)
				var vs []string
				for _, v := range t.Variants {
					vs = append(vs, fmt.Sprintf("%s (%s)", v.Name, v.Surface))
				}
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", t.Name, t.Mode, strings.Join(vs, ", "), t.Description)
			}
			return tw.Flush()
		},
	}
}
