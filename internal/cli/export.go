package cli

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/killchain/killchain/internal/export"
	"github.com/killchain/killchain/internal/plural"
)

func newExportCmd(g *globals) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "export inspect DIR",
		Short: "Write a study folder in another tool's format (Inspect AI eval logs)",
		Long: `export writes a study folder in another tool's format. Its one format today is
Inspect AI's eval log: see export inspect --help and docs/inspect.md.`,
		Example: `  killchain export inspect runs/smoke`,
		Args:    argsBetween(0, 1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return cmd.Help() // as the other parent commands do
			}
			return usagef("unknown format %q: want inspect", args[0])
		},
	}
	cmd.AddCommand(newExportInspectCmd(g))
	return cmd
}

func newExportInspectCmd(g *globals) *cobra.Command {
	var opts export.InspectOptions
	cmd := &cobra.Command{
		Use:   "inspect DIR",
		Short: "Write Inspect AI eval logs of a study folder, so that inspect view opens it",
		Long: `export inspect reads DIR/runs.jsonl, DIR/manifest.json and DIR/transcripts/ and
writes one Inspect AI eval log per task and model (per writer→reader pair for
relay runs) into --out (default DIR/inspect), named as Inspect names its logs
(time_task_id.eval), so that inspect view --log-dir FOLDER lists them.

Each run is a sample: the messages the agents exchanged (hidden thinking as
reasoning content, apart from the visible text; both agents of a relay, each
message marked with its agent), the scores (stage, executed, attack goal, task
success, noticed; the reward-hack verdicts on those tasks), the metadata a
reader filters by (task, variant, surface, condition, defense, attack, canary,
run id) and the tokens per model. An errored run is an errored sample.

--format json writes Inspect's .json format instead of the .eval zip.
docs/inspect.md says which Inspect version the logs target and which fields
carry what.`,
		Example: `  killchain export inspect runs/smoke
  killchain export inspect --out /tmp/logs --format json runs/smoke
  inspect view --log-dir runs/smoke/inspect`,
		Args: argsBetween(1, 1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if opts.Format != export.FormatEval && opts.Format != export.FormatJSON {
				return usagef("--format %q: want eval or json", opts.Format)
			}
			paths, err := export.Inspect(cmd.Context(), args[0], opts)
			if err != nil {
				return err
			}
			for _, p := range paths {
				fmt.Fprintln(g.stdout, p)
			}
			fmt.Fprintf(g.stdout, "wrote %s\n", plural.Count(len(paths), "Inspect log"))
			return nil
		},
	}
	cmd.Flags().StringVar(&opts.Out, "out", "", "folder of the logs (default DIR/inspect)")
	cmd.Flags().StringVar(&opts.Format, "format", export.FormatEval, "log format: eval (a zip, Inspect's default) or json")
	return cmd
}
