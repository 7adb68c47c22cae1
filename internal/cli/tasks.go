package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/killchain/killchain/internal/sanitize"
	"github.com/killchain/killchain/internal/study"
	"github.com/killchain/killchain/tasks"
)

func newTasksCmd(g *globals) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "tasks [STUDY]",
		Short: "List the built-in tasks, and a study's own, with their mode, variants and surfaces",
		Long: `tasks lists every task a study can run: the built-in ones and, given a
study file, the study's own (task blocks in it and in its task_files), with
where each is defined, its family, mode, variants and their surfaces.

  killchain tasks show NAME     print a task as the HCL it is
  killchain tasks new NAME      write a commented starting task file

See docs/writing-a-task.md and docs/task-schema.md.`,
		Example: `  killchain tasks
  killchain tasks runner/testdata/usertasks/study.hcl`,
		Args: argsBetween(0, 1),
		RunE: func(cmd *cobra.Command, args []string) error {
			set, err := taskSet(g, args)
			if err != nil {
				return err
			}
			tw := tabwriter.NewWriter(g.stdout, 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "TASK\tDEFINED\tFAMILY\tMODE\tVARIANTS (surface)\tDESCRIPTION")
			for _, t := range set.All() {
				var vs []string
				for _, v := range t.Variants {
					vs = append(vs, fmt.Sprintf("%s (%s)", v.Name, v.Surface))
				}
				// One cell each: a task file's tab or newline would
				// break the columns (the stdout sanitiser would
				// leave them).
				line := sanitize.Line
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", line(t.Name), line(definedAt(t)), line(string(t.Family())), line(string(t.Mode)),
					line(strings.Join(vs, ", ")), line(t.Description))
			}
			return tw.Flush()
		},
	}
	cmd.AddCommand(newTasksShowCmd(g), newTasksNewCmd(g))
	return cmd
}

// taskSet is the built-in tasks, with a study's own when args names a
// study file.
func taskSet(g *globals, args []string) (*tasks.Set, error) {
	if len(args) == 0 {
		return tasks.Builtin(), nil
	}
	s, ok := study.LoadAndReport(args[0], g.stderr)
	if !ok {
		return nil, errSilent
	}
	return s.Tasks, nil
}

// definedAt says where a task is defined: built-in, or file:line.
func definedAt(t *tasks.Task) string {
	if t.Source.Builtin {
		return "built-in"
	}
	return fmt.Sprintf("%s:%d", t.Source.File, t.Source.Range.Start.Line)
}

func newTasksShowCmd(g *globals) *cobra.Command {
	var (
		studyFile string
		resolved  bool
	)
	cmd := &cobra.Command{
		Use:   "show [--study FILE] [--resolved] NAME",
		Short: "Print a task, built-in ones included, as the HCL it is",
		Long: `show prints a task's definition as it is written: a built-in task's whole
embedded file, or a study's task block. With --resolved it prints the
self-contained form a study folder keeps (task_defs/NAME.hcl): every file the
task reads inline, every default written out. Either, saved as a task file
and named in a study's task_files, runs exactly as the task does (a
definition identical to a built-in one needs no override).`,
		Example: `  killchain tasks show memory_poison
  killchain tasks show --resolved reward_dates > reward_dates.hcl
  killchain tasks show --study my_study.hcl my_task`,
		Args: argsBetween(1, 1),
		RunE: func(cmd *cobra.Command, args []string) error {
			var from []string
			if studyFile != "" {
				from = []string{studyFile}
			}
			set, err := taskSet(g, from)
			if err != nil {
				return err
			}
			t, ok := set.Get(args[0])
			if !ok {
				return fmt.Errorf("no task %q (known: %s)", args[0], strings.Join(set.Names(), ", "))
			}
			out := t.Source.Text
			if resolved || len(out) == 0 {
				out = tasks.Encode(t)
			}
			_, err = g.stdout.Write(out)
			return err
		},
	}
	cmd.Flags().StringVar(&studyFile, "study", "", "also look among the tasks of the study `FILE`")
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
