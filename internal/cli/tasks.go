package cli

import (
	"fmt"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/killchain/killchain/tasks"
)

func newTasksCmd(g *globals) *cobra.Command {
	return &cobra.Command{
		Use:   "tasks",
		Short: "List the scenarios with their mode, variants and surfaces",
		Long: `tasks lists the built-in tasks, the scenarios a study's grids name: each with
its mode (single agent, memory relay or delegation relay), its payload variants
with the surface each enters through, and what happens in it. It prints a
table on stdout and reads nothing; docs/tasks.md describes how to write your own.`,
		Example: `  killchain tasks`,
		Args:    cobra.NoArgs,
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
