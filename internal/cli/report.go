package cli

import (
	"fmt"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/killchain/killchain/internal/importer/agentbench"
	"github.com/killchain/killchain/internal/report"
)

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
self-contained report.html that lists the runs, each row linking the run's
own page in report/runs/: thinking, narration, tool calls and results side by
side, the canary highlighted at each stage (killchain show prints the same in
a terminal).

Every rate carries k/n and its Wilson 95% interval. Errored runs are kept
apart from every rate; runs with no tool call are reported apart.

--import agentbench FILE [DIR] converts the original harness's runs.csv into a
study folder DIR (default runs/agentbench) in our run schema, its own labels
kept beside ours, and reports it, with an audit of the runs whose labels
contradict each other or our stage definitions. --in-paper keeps only the
rows the paper used.

--compare A B puts two result sets side by side (per model ASR with intervals
and the difference) in --output (default A/compare). docs/results.md
describes the folder's files and the report's tables.`,
		Example: `  killchain report runs/smoke
  killchain report --output /tmp/smoke-report --no-html runs/smoke
  killchain report --import agentbench runs.csv runs/agentbench
  killchain report --compare runs/before runs/after`,
		Args: argsBetween(1, 2),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts := report.Options{NoHTML: noHTML, OutDir: out}
			switch {
			case importKind != "":
				if len(args) == 1 {
					args = append(args, filepath.Join("runs", importKind))
				}
				if importKind != agentbench.Harness {
					return usagef("--import %q: want %s", importKind, agentbench.Harness)
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
					return usagef("--compare needs two study folders")
				}
				dir := out
				if dir == "" {
					dir = filepath.Join(args[0], "compare")
				}
				if err := report.Compare(args[0], args[1], out, report.Options{}); err != nil {
					return err
				}
				fmt.Fprintf(g.stdout, "wrote %s\n", filepath.Join(dir, "compare.md"))
			default:
				if len(args) != 1 {
					return usagef("report takes one study folder (or --import / --compare)")
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
