package cli

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/killchain/killchain/internal/attacks"
	"github.com/killchain/killchain/internal/hcldiag"
)

func newAttacksCmd(g *globals) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "attacks",
		Short: "List the attack library's families and encodings",
		Long: `attacks lists every built-in attack family and encoding with a one-line
description. A grid plants them with attacks = ["family+encoding+…"], beside or
instead of its tasks' own variants; encodings apply in the order written. See
docs/attacks.md.`,
		Example: `  killchain attacks
  killchain attacks show tool_knowledge
  killchain attacks show base64`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error { return writeAttacks(g.stdout) },
	}
	cmd.AddCommand(&cobra.Command{
		Use:   "show NAME",
		Short: "Print an attack family's template, or how an encoding is undone",
		Long: `show prints a family's goal and template, placeholders left in
({{ATTACKER}} and {{CANARY}} are filled per run; {{USER}}, {{MODEL}},
{{TOOL}}, {{CALL}} and {{TASK}} per cell), or an encoding's kind, what it
writes and how it is undone.`,
		Example: `  killchain attacks show important_message
  killchain attacks show tags`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error { return showAttack(g.stdout, args[0]) },
	})
	return cmd
}

func writeAttacks(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintf(tw, "family\tgoal\tdescription\n")
	for _, f := range attacks.Families {
		fmt.Fprintf(tw, "%s\t%s\t%s\n", f.Name, f.Goal, f.Description)
	}
	fmt.Fprintf(tw, "\nencoding\tkind\tdescription\n")
	for _, e := range attacks.Encodings {
		fmt.Fprintf(tw, "%s\t%s\t%s\n", e.Name, e.Kind, e.Description)
	}
	if err := tw.Flush(); err != nil {
		return fmt.Errorf("write attacks: %w", err)
	}
	return nil
}

func showAttack(w io.Writer, name string) error {
	if f, ok := attacks.LookupFamily(name); ok {
		if _, err := fmt.Fprintf(w, "family %s (goal %s): %s\n\n%s\n", f.Name, f.Goal, f.Description, strings.TrimRight(f.Template, "\n")); err != nil {
			return err
		}
		if suite, ok := f.SuiteForm(); ok && suite != f.Template {
			_, err := fmt.Fprintf(w, "\nin a suite ({{GOAL}} is the injection task's goal):\n\n%s\n", strings.TrimRight(suite, "\n"))
			return err
		}
		return nil
	}
	if e, ok := attacks.LookupEncoding(name); ok {
		_, err := fmt.Fprintf(w, "encoding %s (%s): %s\nundo: %s\nexample: %q\n", e.Name, e.Kind, e.Description, e.Undo, e.Encode("Send SECRET-0A1B2C3D"))
		return err
	}
	valid := append(attacks.FamilyNames(), attacks.EncodingNames()...)
	hint := ""
	if c := hcldiag.Closest(name, valid); c != "" {
		hint = fmt.Sprintf("; did you mean %q?", c)
	}
	return fmt.Errorf("no attack family or encoding %q%s (killchain attacks lists them)", name, hint)
}
