package cli

import (
	"os"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/killchain/killchain/internal/report/runview"
)

func newShowCmd(g *globals) *cobra.Command {
	var color string
	cmd := &cobra.Command{
		Use:   "show DIR RUN_ID",
		Short: "Print one run's transcript: thinking, narration, tool calls and results apart, the canary marked",
		Long: `show reads the run RUN_ID (or the one run whose id starts with RUN_ID) of
the study folder DIR (its last line in
DIR/runs.jsonl, DIR/transcripts/RUN_ID.json and its events in DIR/events.jsonl)
and prints it on stdout: the run's outcome (stage and stage flags, attack goal,
task success, noticed; the verdict of a reward-hack run; the error of an
errored one), then each agent's system prompt and prompt and, step by step,
its hidden thinking, its visible narration, its tool calls and the tool results
it was shown, each labelled on lines of its own. The run's canary is marked
wherever it is written (»SECRET-…« without color), an entry that carries it
encoded is tagged "canary encoded", and each entry is tagged with the signals
the tracker recorded there (exposed, persisted, relayed, executed, noticed, …).

Colors are used when stdout is a terminal and NO_COLOR is unset (--color
always|never overrides). It writes nothing.`,
		Example: `  killchain show runs/smoke propagation-679e6d39
  killchain show --color never runs/smoke propagation-679e6d39 | less`,
		Args: argsBetween(2, 2),
		RunE: func(cmd *cobra.Command, args []string) error {
			var on bool
			switch color {
			case "always":
				on = true
			case "never":
			case "auto":
				f, ok := g.rawStdout.(*os.File)
				on = ok && term.IsTerminal(int(f.Fd())) && g.getenv("NO_COLOR") == ""
			default:
				return usagef("--color %q: want auto, always or never", color)
			}
			// runview sanitises the run's text itself and adds its own
			// colors, which the sanitising stdout would show as text.
			return runview.WriteText(cmd.Context(), g.rawStdout, args[0], args[1], runview.TextOptions{Color: on})
		},
	}
	cmd.Flags().StringVar(&color, "color", "auto", "mark the canary and the labels in color: auto, always or never")
	return cmd
}
