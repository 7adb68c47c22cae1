package cli

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/killchain/killchain/internal/plural"
	"github.com/killchain/killchain/internal/sanitize"
	"github.com/killchain/killchain/internal/study"
)

// selectionHelp explains the subset flags; run and plan append it to
// their long help.
const selectionHelp = `Subsets: --tasks, --models, --grids, --conditions, --defenses and --attacks
each keep only the runs whose value they list (comma-separated, or the flag
repeated; a run's attack is its attack-library attack or its task's own variant),
and --skip-tasks leaves out the runs of the tasks it lists;
--models matches a model alone or either side of a writer→reader pair. The
lists combine: a run is kept when every list given admits it.

--sample N then keeps a seeded, stratified sample of at most N of those runs.
Its strata are the kinds of cell: task/condition/defense, suite/user
task/condition/defense for a suite (the task fixes the surface and the mode;
models, pairs, variants, injections and repeats vary within). With N at least
the number of strata, every stratum gets one run and the rest are shared in
proportion to the strata's sizes; with fewer, N strata get one run each,
taken round-robin across the suites and the tasks outside suites, and a note
on stderr says so. A suite's first run is a user task × injection pair, its
second that user task's clean control: N at least twice the suites and tasks
keeps both for every suite; with N below the suites and tasks, the first N in
plan order get one run each, and stderr names the suites left out.
Within a stratum the runs are drawn one per cell before any repeat. The seed
is the study's seed unless --sample-seed sets another; the same seed gives
the same sample. --sample 0 means no sampling.

A subset only filters the full plan: its runs keep the full study's run ids,
and the folder keeps the full plan's hash. A later run --resume into the same
folder, with another subset or none, runs only what is still missing.`

// selectFlags are the subset flags of run and plan.
type selectFlags struct {
	tasks, skipTasks, models, grids, conditions, defenses, attacks []string
	sample                                                         int
	sampleSeed                                                     int64
}

func (f *selectFlags) register(cmd *cobra.Command) {
	fs := cmd.Flags()
	fs.StringSliceVar(&f.tasks, "tasks", nil, "only runs of the tasks `NAMES` (comma-separated, or the flag repeated)")
	fs.StringSliceVar(&f.skipTasks, "skip-tasks", nil, "no runs of the tasks `NAMES`")
	fs.StringSliceVar(&f.models, "models", nil, "only runs of the models `NAMES`, alone or on either side of a pair")
	fs.StringSliceVar(&f.grids, "grids", nil, "only runs of the grids `NAMES`")
	fs.StringSliceVar(&f.conditions, "conditions", nil, "only runs under the conditions `NAMES`")
	fs.StringSliceVar(&f.defenses, "defenses", nil, "only runs under the defenses `NAMES`")
	fs.StringSliceVar(&f.attacks, "attacks", nil, "only runs of the attacks `NAMES` (\"tool_knowledge+base64\", or a task's own variant)")
	fs.IntVar(&f.sample, "sample", 0, "then keep a seeded sample of at most `N` runs, every task/condition/defense and every suite represented when N allows (0: no sampling)")
	fs.Int64Var(&f.sampleSeed, "sample-seed", 0, "seed the sample with `SEED` (default: the study's seed)")
}

// selection builds the selection the flags ask for, checked against s; it
// returns nil when they ask for none. Every problem is printed to stderr,
// and the error is then errSilent.
func (f *selectFlags) selection(cmd *cobra.Command, s *study.Study, stderr io.Writer) (*study.Selection, error) {
	sel := study.Selection{
		Tasks: f.tasks, SkipTasks: f.skipTasks, Models: f.models, Grids: f.grids, Conditions: f.conditions, Defenses: f.defenses,
		Attacks: f.attacks, Sample: f.sample, Seed: s.Seed,
	}.Normalize()
	seedSet := cmd.Flags().Changed("sample-seed")
	if seedSet {
		sel.Seed = f.sampleSeed
	}
	errs := sel.Validate(s)
	if seedSet && f.sample == 0 {
		errs = append(errs, fmt.Errorf("--sample-seed seeds --sample, which is not set"))
	}
	if len(errs) > 0 {
		for _, err := range errs {
			fmt.Fprintln(stderr, "killchain:", err)
		}
		return nil, errSilent
	}
	if sel.Empty() {
		return nil, nil
	}
	return &sel, nil
}

// apply returns the runs of plan that sel keeps (all of them for a nil
// sel). It refuses a selection that keeps nothing, and notes on stderr a
// sample too small to represent every stratum.
func apply(sel *study.Selection, plan []study.Run, stderr io.Writer) ([]study.Run, error) {
	if sel == nil {
		return plan, nil
	}
	filtered := sel.Filter(plan)
	if len(filtered) == 0 {
		return nil, fmt.Errorf("the selection %s keeps none of the study's %s", sel, plural.Count(len(plan), "run"))
	}
	if strata := study.Strata(filtered); sel.Sample > 0 && sel.Sample < strata {
		fmt.Fprintf(stderr, "killchain: --sample %d is below the %s (task/condition/defense) of the selected runs: "+
			"%s one run each, taken round-robin across suites and tasks, and %d get none\n",
			sel.Sample, plural.CountAs(strata, "stratum", "strata"), plural.CountAs(sel.Sample, "stratum gets", "strata get"), strata-sel.Sample)
	}
	kept := sel.Apply(plan)
	if sel.Sample > 0 {
		missing, partial := study.SuiteCoverage(filtered, kept)
		if len(missing) > 0 {
			fmt.Fprintf(stderr, "killchain: --sample %d keeps no run of %s: %s\n", sel.Sample,
				plural.CountAs(len(missing), "suite", "suites"), sanitize.Line(strings.Join(missing, ", ")))
		}
		if len(partial) > 0 {
			fmt.Fprintf(stderr, "killchain: --sample %d keeps no attacked run or no clean control of %s: %s\n", sel.Sample,
				plural.CountAs(len(partial), "suite", "suites"), sanitize.Line(strings.Join(partial, ", ")))
		}
	}
	return kept, nil
}

// selectedLine describes a subset of a plan in one line.
func selectedLine(sel *study.Selection, kept, planned int) string {
	return fmt.Sprintf("selection %s: %d of the study's %s", sel, kept, plural.Count(planned, "run"))
}

// writeRunIDs lists runs, one a line: run id, cell, repeat.
func writeRunIDs(w io.Writer, runs []study.Run) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintf(tw, "\nrun\tcell\trepeat\n")
	for _, r := range runs {
		fmt.Fprintf(tw, "%s\t%s\t%d\n", r.RunID, r.Cell, r.Repeat)
	}
	if err := tw.Flush(); err != nil {
		return fmt.Errorf("write runs: %w", err)
	}
	return nil
}

// loadPlan loads a study file, applies --sandbox and the subset flags, and
// checks that the backend can run what is selected: the steps plan and run
// share. It returns the study, the selection (nil for the full study), the
// full plan and the selected runs. warn prints the max_tokens warnings.
func loadPlan(cmd *cobra.Command, g *globals, file, sandbox string, subset *selectFlags, warn bool) (*study.Study, *study.Selection, []study.Run, []study.Run, error) {
	s, ok := study.LoadAndReport(file, g.stderr)
	if !ok {
		return nil, nil, nil, nil, errSilent
	}
	if warn {
		warnTokens(g.stderr, s)
	}
	if sandbox != "" {
		s.Sandbox = sandbox
	}
	if allow, _ := cmd.Flags().GetBool(hostShellFlag); allow {
		s.AllowHostShell = true
	}
	sel, err := subset.selection(cmd, s, g.stderr)
	if err != nil {
		return nil, nil, nil, nil, err
	}
	plan, err := s.Plan()
	if err != nil {
		return nil, nil, nil, nil, err
	}
	runs, err := apply(sel, plan, g.stderr)
	if err != nil {
		return nil, nil, nil, nil, err
	}
	if err := checkBackend(s, runs); err != nil {
		return nil, nil, nil, nil, err
	}
	return s, sel, plan, runs, nil
}
