package cli

import (
	"fmt"
	"slices"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"

	"github.com/spf13/cobra"

	"github.com/killchain/killchain/internal/study"
	"github.com/killchain/killchain/tasks"
	"github.com/killchain/killchain/verifiers/groundtruth"
)

func newTasksCheckCmd(g *globals) *cobra.Command {
	var (
		sandboxName string
		markdown    bool
	)
	cmd := &cobra.Command{
		Use:   "check [--sandbox local|docker] [FILE]",
		Short: "Play every ground truth of the stateful environments in a sandbox",
		Long: `check plays the ground truth of every user task and injection of the
environments a file defines or uses (a task file or a study file; without
one, the built-in environments), each in a fresh sandbox, and requires:

  - a user task's calls make its goal true and no injection's check of its
    environment: a pair whose check the task's own calls reach would count
    the attack as reached on clean runs, so it is refused by name;
  - an injection's calls make its check true;
  - and, as warnings, every injection is planted where some user task's
    calls read (a vector no user task reads can never be seen), and every
    user task reads some vector.

--sandbox local (the default) plays them in process; --sandbox docker
through the toolbox in a container, as a study's runs are played. Exit 1
when any ground truth fails. --markdown then prints the checked suites as
Markdown tables (each user task with the vectors its calls read, each
injection with its check): docs/suites.md holds the built-ins' so. See
docs/task-schema.md.`,
		Example: `  killchain tasks check hcl/suite/pocketbank.hcl
  killchain tasks check --sandbox docker hcl/suite/pocketbank.hcl`,
		Args: argsBetween(0, 1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if sandboxName != "local" && sandboxName != "docker" {
				return usagef("--sandbox %q: tasks check plays ground truths on local or docker", sandboxName)
			}
			set, own, err := taskSet(g, args)
			if err != nil {
				return err
			}
			envs := checkedEnvironments(set, own, args)
			if len(envs) == 0 {
				fmt.Fprintln(g.stdout, "tasks check: no environment to check")
				return nil
			}
			s := &study.Study{Name: "tasks-check", Sandbox: sandboxName, Tasks: set}
			choice, err := chooseBackend(s)
			if err != nil {
				return err
			}
			log := g.logger(nil)
			be, err := choice.open(cmd.Context(), g, log)
			if err != nil {
				return err
			}
			defer be.close()
			r, err := groundtruth.Check(cmd.Context(), be, set, envs)
			if r != nil {
				if werr := r.Write(g.stdout); werr != nil {
					return werr
				}
			}
			if err != nil {
				return fmt.Errorf("tasks check: %w", err)
			}
			if r.Failed() > 0 {
				return errSilent
			}
			if markdown {
				fmt.Fprintln(g.stdout)
				return r.WriteMarkdown(g.stdout, set)
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&sandboxName, "sandbox", "local", "where the ground truths are played: local (in process) or docker (the toolbox in a container)")
	cmd.Flags().BoolVar(&markdown, "markdown", false, "after the checks, print the suites as Markdown tables (what docs/suites.md holds)")
	return cmd
}

// checkedEnvironments are the environments `tasks check` plays: without a
// file the built-in ones; with one, those it defines and those its own
// tasks and injections work in.
func checkedEnvironments(set *tasks.Set, own []*tasks.Task, args []string) []string {
	var out []string
	add := func(name string) {
		if !slices.Contains(out, name) {
			out = append(out, name)
		}
	}
	// Beside the built-ins, the set holds only the file's definitions
	// (and a study's task files').
	for _, e := range set.Environments() {
		if e.Source.Builtin == (len(args) == 0) {
			add(e.Name)
		}
	}
	if len(args) == 0 {
		return out
	}
	for _, t := range own {
		if t.Environment != nil {
			add(t.Environment.Name)
		}
	}
	for _, in := range set.Injections() {
		if !in.Source.Builtin {
			add(in.Environment)
		}
	}
	// A file whose definitions are the built-ins' own (one of the files
	// under tasks/builtin) defines nothing new, yet names its environments.
	for _, name := range namedEnvironments(args[0]) {
		if _, ok := set.Environment(name); ok {
			add(name)
		}
	}
	slices.Sort(out)
	return out
}

// namedEnvironments are the environments a task file's blocks declare or
// name (`environment "X"`, and `environment = "X"` in a task, injection or
// suite block); nothing when the file does not parse (the loader has
// reported why).
func namedEnvironments(path string) []string {
	src, err := tasks.ReadTaskFile(path)
	if err != nil {
		return nil
	}
	f, diags := hclsyntax.ParseConfig(src, path, hcl.Pos{Line: 1, Column: 1})
	if diags.HasErrors() {
		return nil
	}
	body, ok := f.Body.(*hclsyntax.Body)
	if !ok {
		return nil
	}
	var out []string
	for _, b := range body.Blocks {
		switch {
		case b.Type == "environment" && len(b.Labels) == 1:
			out = append(out, b.Labels[0])
		case b.Type == "task" || b.Type == "injection" || b.Type == "suite":
			if a, ok := b.Body.Attributes["environment"]; ok {
				if v, d := a.Expr.Value(nil); !d.HasErrors() && v.Type() == cty.String && v.IsKnown() && !v.IsNull() {
					out = append(out, v.AsString())
				}
			}
		}
	}
	return out
}
