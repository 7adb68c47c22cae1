package cli

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/killchain/killchain/internal/plural"
	"github.com/killchain/killchain/internal/recount"
)

func newRecountCmd(g *globals) *cobra.Command {
	return &cobra.Command{
		Use:   "recount DIR",
		Short: "Recount every run's stages from its transcript and list disagreements with runs.jsonl",
		Long: `recount re-derives the stage flags of every attacked, finished run of a study
folder from the run's transcript alone: Executed and Persisted from the sandbox's
effect log (what it actually committed and sent), the delegation relay from its
hand-over effects, the memory relay and Exposed from the tool messages the agents
were shown. It reads DIR/runs.jsonl and DIR/transcripts/ and writes nothing.

It prints each run and stage where runs.jsonl says otherwise on stdout and
exits 1 if there is any; 0 disagreements is what a sound study shows.`,
		Example: `  killchain recount runs/smoke`,
		Args:    argsBetween(1, 1),
		RunE: func(cmd *cobra.Command, args []string) error {
			res, err := recount.Study(args[0])
			if err != nil {
				return err
			}
			for _, d := range res.Disagreements {
				fmt.Fprintf(g.stdout, "%s  %-9s  runs.jsonl %-5s  recount %s\n", d.RunID, d.Stage, d.Recorded, d.Recount)
			}
			fmt.Fprintf(g.stdout, "recounted %s (%d clean or errored skipped, %d without a transcript): %s\n",
				plural.Count(res.Runs, "attacked run"), res.Skipped, res.Missing, plural.Count(len(res.Disagreements), "disagreement"))
			if n := len(res.Disagreements); n > 0 {
				return fmt.Errorf("%s the recount (%v)", plural.CountAs(n, "stage label disagrees with", "stage labels disagree with"), res.Stages())
			}
			return nil
		},
	}
}
