package cli

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/killchain/killchain/internal/plural"
	"github.com/killchain/killchain/internal/study"
)

func newValidateCmd(g *globals) *cobra.Command {
	return &cobra.Command{
		Use:   "validate FILE...",
		Short: "Check study files and print every problem with file:line:col",
		Long: `validate reads each study FILE and checks it: syntax, unknown model, task,
variant, condition and defense names (with the nearest known name when one is
close), duplicate blocks and bad values, and that its grids expand into runs.
It writes nothing.

Every file is checked, and every problem printed on stderr as
file:line:col: error|warning: …, with the line and a caret under the place.
The verdict goes to stdout, one line per file: a valid file's with its grid
and run counts, an invalid file's with its count of errors, and with several
files a last line that sums them up. It exits 1 if any file has an error
(warnings alone pass). See docs/studies.md for the schema.`,
		Example: `  killchain validate hcl/smoke.hcl
  killchain validate hcl/*.hcl`,
		Args: argsBetween(1, -1),
		RunE: func(cmd *cobra.Command, args []string) error {
			bad := 0
			for _, file := range args {
				if study.Validate(file, g.stdout, g.stderr) != 0 {
					bad++
				}
			}
			if len(args) > 1 {
				fmt.Fprintf(g.stdout, "checked %s: %d valid, %d with errors\n", plural.Count(len(args), "file"), len(args)-bad, bad)
			}
			if bad > 0 {
				return errSilent
			}
			return nil
		},
	}
}
