package cli

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/killchain/killchain/internal/hcldiag"
	"github.com/killchain/killchain/internal/sanitize"
	"github.com/killchain/killchain/internal/study"
	"github.com/killchain/killchain/tasks"
)

func newTasksCmd(g *globals) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "tasks [FILE]",
		Short: "List the tasks, and the suites, user tasks and injections of stateful environments",
		Long: `tasks lists every task a study can run: the built-in ones and, given a
study file or a task file, its own (task blocks in it and in its
task_files), with where each is defined, its family, mode, variants and
their surfaces. Stateful environments add three tables: their suites,
their user tasks (environment, mode, helpful) and their injections
(environment, kind, attacker).

  killchain tasks show NAME     print a task, injection, suite or environment as the HCL it is
  killchain tasks check [FILE]  play every ground truth in a sandbox
  killchain tasks new NAME      write a commented starting task file

See docs/writing-a-task.md and docs/task-schema.md.`,
		Example: `  killchain tasks
  killchain tasks runner/testdata/usertasks/study.hcl
  killchain tasks hcl/suite/pocketbank.hcl`,
		Args: argsBetween(0, 1),
		RunE: func(cmd *cobra.Command, args []string) error {
			set, _, err := taskSet(g, args)
			if err != nil {
				return err
			}
			return writeTaskTables(g.stdout, set)
		},
	}
	cmd.AddCommand(newTasksShowCmd(g), newTasksCheckCmd(g), newTasksNewCmd(g))
	return cmd
}

// writeTaskTables prints the tasks without an environment, then the
// suites, user tasks and injections of the environments.
func writeTaskTables(w io.Writer, set *tasks.Set) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "TASK\tDEFINED\tFAMILY\tMODE\tVARIANTS (surface)\tDESCRIPTION")
	var users []*tasks.Task
	for _, t := range set.All() {
		if t.Environment != nil {
			users = append(users, t)
			continue
		}
		var vs []string
		for _, v := range t.Variants {
			vs = append(vs, fmt.Sprintf("%s (%s)", v.Name, v.Surface))
		}
		// One cell each: a task file's tab or newline would break the
		// columns (the stdout sanitiser would leave them).
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", line(t.Name), line(definedAt(t.Source)), line(string(t.Family())), line(string(t.Mode)),
			line(strings.Join(vs, ", ")), line(t.Description))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if suites := set.Suites(); len(suites) > 0 {
		fmt.Fprintln(w)
		fmt.Fprintln(tw, "SUITE\tDEFINED\tENVIRONMENT\tUSER\tATTACKER\tUSER TASKS\tINJECTIONS")
		for _, su := range suites {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%d\t%d\n", line(su.Name), line(definedAt(su.Source)), line(su.Environment), line(su.User),
				line(orDash(su.Attacker)), len(su.UserTasks), len(su.Injections))
		}
		if err := tw.Flush(); err != nil {
			return err
		}
	}
	if len(users) > 0 {
		fmt.Fprintln(w)
		fmt.Fprintln(tw, "USER TASK\tDEFINED\tENVIRONMENT\tMODE\tROLES\tHELPFUL\tDESCRIPTION")
		for _, t := range users {
			helpful := "-"
			if t.Helpful {
				helpful = "helpful"
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%d\t%s\t%s\n", line(t.Name), line(definedAt(t.Source)), line(t.Environment.Name), line(string(t.Mode)),
				len(t.Roles), helpful, line(t.Description))
		}
		if err := tw.Flush(); err != nil {
			return err
		}
	}
	if injs := set.Injections(); len(injs) > 0 {
		fmt.Fprintln(w)
		fmt.Fprintln(tw, "INJECTION\tDEFINED\tENVIRONMENT\tKIND\tATTACKER\tOWN WORDING\tGOAL")
		for _, in := range injs {
			wording := "-"
			if in.Payload != "" {
				wording = "yes"
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", line(in.Name), line(definedAt(in.Source)), line(in.Environment), line(in.Kind),
				line(orDash(set.AttackerOf(in))), wording, line(in.Goal))
		}
	}
	return tw.Flush()
}

// line is a table cell from a task file: on one line, nothing a terminal acts on.
func line(s string) string { return sanitize.Line(s) }

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// taskSet is the built-in tasks, with a study's or a task file's own when
// args names one; own are the file's own tasks.
func taskSet(g *globals, args []string) (*tasks.Set, []*tasks.Task, error) {
	if len(args) == 0 {
		return tasks.Builtin(), nil, nil
	}
	set, own, ok := study.LoadTasksAndReport(args[0], g.stderr)
	if !ok {
		return nil, nil, errSilent
	}
	return set, own, nil
}

// definedAt says where a definition stands: built-in, or file:line.
func definedAt(src tasks.Source) string {
	if src.Builtin {
		return "built-in"
	}
	return fmt.Sprintf("%s:%d", src.File, src.Range.Start.Line)
}

func newTasksShowCmd(g *globals) *cobra.Command {
	var (
		studyFile string
		resolved  bool
	)
	cmd := &cobra.Command{
		Use:   "show [--study FILE] [--resolved] NAME",
		Short: "Print a task, injection, suite or environment as the HCL it is",
		Long: `show prints a definition as it is written: a built-in scenario's whole
embedded file; a study's task block, or a suite's user task's (its file
holds others); an injection, suite or environment
block (a suite and an environment may share a name: both are printed).
With --resolved it prints the self-contained form a study folder keeps
(task_defs/NAME.hcl): every file the task reads inline, every default
written out; for a task over an environment, the environment (its state
written out), its injections and its suites too. Either, saved as a task
file and named in a study's task_files, runs exactly as the task does (a
definition identical to a built-in one needs no override).`,
		Example: `  killchain tasks show memory_poison
  killchain tasks show --resolved reward_dates > reward_dates.hcl
  killchain tasks show --study my_study.hcl my_task
  killchain tasks show --study hcl/suite/pocketbank.hcl pocketbank.leak_iban`,
		Args: argsBetween(1, 1),
		RunE: func(cmd *cobra.Command, args []string) error {
			var from []string
			if studyFile != "" {
				from = []string{studyFile}
			}
			set, _, err := taskSet(g, from)
			if err != nil {
				return err
			}
			out := showDefinition(set, args[0], resolved)
			if out == nil {
				names := set.Names()
				for _, in := range set.Injections() {
					names = append(names, in.Name)
				}
				for _, e := range set.Environments() {
					names = append(names, e.Name)
				}
				hint := ""
				if best := hcldiag.Closest(args[0], names); best != "" {
					hint = fmt.Sprintf("; did you mean %q?", best)
				}
				return fmt.Errorf("no task, injection, suite or environment %q%s (known: %s)", args[0], hint, strings.Join(names, ", "))
			}
			_, err = g.stdout.Write(out)
			return err
		},
	}
	cmd.Flags().StringVar(&studyFile, "study", "", "also look among the definitions of the study or task `FILE`")
	cmd.Flags().BoolVar(&resolved, "resolved", false, "print the self-contained form, files inline")
	return cmd
}

func newTasksNewCmd(g *globals) *cobra.Command {
	var output string
	cmd := &cobra.Command{
		Use:   "new [--output FILE] NAME",
		Short: "Write a commented starting task file that validates",
		Long: `new writes a task file for a new task NAME: a single-agent task with a
web page carrying {{PAYLOAD}}, a task tool, two payload variants, a goal and
an attack, every field commented. It validates as written (killchain
validate FILE checks a task file alone) and runs with the reference agents;
edit it from there. The file goes to NAME.hcl unless --output says where
("-" for stdout); an existing file is never overwritten.`,
		Example: `  killchain tasks new --output tasks/invoice_review.hcl invoice_review
  killchain validate tasks/invoice_review.hcl`,
		Args: argsBetween(1, 1),
		RunE: func(cmd *cobra.Command, args []string) error {
			name := args[0]
			src, err := tasks.Starter(name)
			if err != nil {
				return err
			}
			if output == "-" {
				_, err := g.stdout.Write(src)
				return err
			}
			if output == "" {
				output = name + ".hcl"
			}
			f, err := os.OpenFile(output, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
			if err != nil {
				return fmt.Errorf("write %s: %w", output, err)
			}
			if _, err := f.Write(src); err != nil {
				f.Close()
				return fmt.Errorf("write %s: %w", output, err)
			}
			if err := f.Close(); err != nil {
				return fmt.Errorf("write %s: %w", output, err)
			}
			fmt.Fprintf(g.stdout, "wrote %s: check it with `killchain validate %s`, then name it in a study's task_files (relative to the study file, e.g. %q)\n",
				output, output, filepath.ToSlash(filepath.Join("tasks", filepath.Base(output))))
			return nil
		},
	}
	cmd.Flags().StringVarP(&output, "output", "o", "", "where the file goes (default NAME.hcl; - for stdout)")
	return cmd
}

// showDefinition is what `tasks show` prints for a name: a task, else an
// injection; else the suite and the environment of that name (they may
// share one). nil when nothing has the name.
func showDefinition(set *tasks.Set, name string, resolved bool) []byte {
	text := func(src tasks.Source, enc func() []byte) []byte {
		if resolved || len(src.Text) == 0 {
			return enc()
		}
		out := append([]byte(nil), src.Text...)
		if !bytes.HasSuffix(out, []byte("\n")) {
			out = append(out, '\n')
		}
		return out
	}
	if t, ok := set.Get(name); ok {
		return text(t.Source, func() []byte { return tasks.Encode(t) })
	}
	if in, ok := set.Injection(name); ok {
		return text(in.Source, func() []byte { return tasks.EncodeInjection(in) })
	}
	var out []byte
	if su, ok := set.Suite(name); ok {
		out = append(out, text(su.Source, func() []byte { return tasks.EncodeSuite(su) })...)
	}
	if e, ok := set.Environment(name); ok {
		if len(out) > 0 {
			out = append(out, '\n')
		}
		out = append(out, text(e.Source, func() []byte { return tasks.EncodeEnvironment(e) })...)
	}
	return out
}
