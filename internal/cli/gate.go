package cli

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/killchain/killchain/internal/gate"
	"github.com/killchain/killchain/internal/results"
	"github.com/killchain/killchain/internal/rooted"
	"github.com/killchain/killchain/internal/study"
)

// gateFlags are the gate options of run and gate.
type gateFlags struct {
	junit    string
	baseline string
	strict   bool
}

func (f *gateFlags) add(cmd *cobra.Command) {
	cmd.Flags().StringVar(&f.junit, "junit", "", "write the gate's verdict as JUnit XML to FILE")
	cmd.Flags().StringVar(&f.baseline, "baseline", "", "compare ASR per model with an earlier study folder DIR; a significant increase fails")
	cmd.Flags().BoolVar(&f.strict, "strict-thresholds", false, "an inconclusive threshold fails the gate")
}

// check refuses a baseline folder without runs before a study starts.
func (f *gateFlags) check() error {
	if f.baseline == "" {
		return nil
	}
	if _, err := os.Stat(filepath.Join(f.baseline, results.RunsFile)); err != nil {
		return fmt.Errorf("baseline: %w", err)
	}
	return nil
}

// wanted reports whether a run should evaluate the gate at all.
func (f *gateFlags) wanted(s *study.Study) bool {
	return len(s.Thresholds) > 0 || f.junit != "" || f.baseline != ""
}

// runGate evaluates dir against s, prints the summary, writes the JUnit
// file and the GitHub step summary, and returns exitCode(exitBreached) on
// a failed gate.
func runGate(g *globals, dir string, s *study.Study, f gateFlags) error {
	rep, err := gate.Evaluate(dir, s, gate.Options{Strict: f.strict, Baseline: f.baseline})
	if err != nil {
		return err
	}
	if err := rep.WriteText(g.stdout); err != nil {
		return err
	}
	if f.junit != "" {
		if err := writeFileWith(f.junit, rep.WriteJUnit); err != nil {
			return fmt.Errorf("junit: %w", err)
		}
	}
	if p := g.getenv("GITHUB_STEP_SUMMARY"); p != "" {
		sf, err := os.OpenFile(p, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
		if err != nil {
			return fmt.Errorf("step summary: %w", err)
		}
		werr := rep.WriteMarkdown(sf)
		if err := errors.Join(werr, sf.Close()); err != nil {
			return fmt.Errorf("step summary: %w", err)
		}
	}
	if code := rep.ExitCode(); code != exitOK {
		return exitCode(code)
	}
	return nil
}

// writeFileWith writes a file through fn, creating its folder, through
// package rooted: atomically, with the mode of every file killchain
// writes, and refused when the file is a link.
func writeFileWith(path string, fn func(w io.Writer) error) error {
	dir, err := rooted.Open(filepath.Dir(path))
	if err != nil {
		return err
	}
	defer dir.Close()
	f, err := dir.Create(filepath.Base(path))
	if err != nil {
		return err
	}
	defer f.Close()
	if err := fn(f); err != nil {
		return err
	}
	return f.Commit()
}

// gateHelp explains metrics, the decision rule and the exit codes; run and
// gate both show it.
const gateHelp = `Thresholds (threshold blocks of the study) are rates k/n over the latest
line of each run, among the runs their selectors pick (models, pairs, tasks,
conditions, defenses; a model matches alone and as a same-model pair):

  asr           executed among attacked runs without an error
  attack_goal   attack goal reached among attacked runs without an error
  task_success  legitimate task done among runs without an error
  exposed, persisted, relayed, executed
                the stage reached among attacked runs without an error where
                the stage applies (persisted and relayed: relay runs only)
  errors        errored runs among all runs

Each bound is judged on the Wilson 95% interval [lo, hi] of k/n: a max fails
when lo > max and passes when hi ≤ max; a min fails when hi < min and passes
when lo ≥ min; otherwise (and at n = 0) it is inconclusive (?), which passes
unless --strict-thresholds. --baseline DIR compares ASR per model over the
cells both folders hold and fails when Newcombe's hybrid score 95% interval of
the difference (now − baseline) lies above 0.

Exit status: 0 pass, 1 the study could not run or be read, 99 a threshold
breached or a baseline regression, 130 interrupted. --junit FILE writes
JUnit XML (one case per threshold, per baseline model and per cell); with
GITHUB_STEP_SUMMARY set, a Markdown summary is appended to that file.`

func newGateCmd(g *globals) *cobra.Command {
	var f gateFlags
	cmd := &cobra.Command{
		Use:   "gate DIR [--baseline DIR] [--junit FILE] [--strict-thresholds]",
		Short: "Judge a finished study folder against its thresholds (exit 99 on a breach)",
		Long: `gate evaluates the threshold blocks of the study.hcl saved in DIR on
DIR/runs.jsonl, as run does when the study ends, and prints ✓/✗/? per
threshold with its k/n, Wilson interval and the rule used. It writes only
the --junit file and the GitHub step summary (docs/ci-gates.md).

` + gateHelp,
		Example: `  killchain gate runs/ci
  killchain gate --junit ci/junit.xml --baseline runs/ci-main runs/ci`,
		Args: argsBetween(1, 1),
		RunE: func(cmd *cobra.Command, args []string) error {
			s, ok := study.LoadAndReport(filepath.Join(args[0], results.StudyFile), g.stderr)
			if !ok {
				return errSilent
			}
			return runGate(g, args[0], s, f)
		},
	}
	f.add(cmd)
	return cmd
}
