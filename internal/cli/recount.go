package cli

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/killchain/killchain/internal/recount"
)

func init() { extraCommands = append(extraCommands, newRecountCmd) }

func newRecountCmd(g *globals) *cobra.Command {
	return &cobra.Command{
		Use:   "recount DIR",
		Short: "Recount every run's stages from its transcript and list disagreements with runs.jsonl",
		Long: `recount re-derives the stage flags of every attacked, finished run of a study
folder from the run's transcript alone: Executed and Persisted from the sandbox's
effect log (what it actually committed and sent), the delegation relay from its
hand-over effects, the memory relay and Exposed from the tool messages the agents
were shown. It prints each run and stage where runs.jsonl says otherwise and
exits 1 if there is any; 0 disagreements is what a sound study shows.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			res, err := recount.Study(args[0])
			if err != nil {
				return err
			}
			for _, d := range res.Disagreements {
				fmt.Fprintf(g.stdout, "%s  %-9s  runs.jsonl %-5s  recount %s\n", d.RunID, d.Stage, d.Recorded, d.Recount)
			}
			fmt.Fprintf(g.stdout, "recounted %d attacked runs (%d clean or errored skipped, %d without a transcript): %d disagreements\n",
				res.Runs, res.Skipped, res.Missing, len(res.Disagreements))
			if len(res.Disagreements) > 0 {
				return fmt.Errorf("%d stage labels disagree with the recount (%v)", len(res.Disagreements), res.Stages())
			}
			return nil
		},
	}
}
