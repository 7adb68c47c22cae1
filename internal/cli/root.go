package cli

import (
	"github.com/spf13/cobra"
)

// Command groups, in the order help lists them.
const (
	groupStudy   = "study"
	groupMachine = "machine"
	groupMeasure = "measure"
)

// newRoot builds the command tree: every command killchain has is wired
// here, in this one list.
func newRoot(g *globals) *cobra.Command {
	root := &cobra.Command{
		Use:   "killchain",
		Short: "Run LLM agents through prompt-injection scenarios and track each canary through the kill chain",
		Long: `killchain runs LLM agents through prompt-injection scenarios, each run in its own sandbox,
and tracks a fresh canary token per attacked run through the kill-chain stages
Exposed → Persisted → Relayed → Executed. It writes runs.jsonl, events.jsonl and
transcripts, and turns them into tables with Wilson 95% confidence intervals.

A study is an HCL file (see hcl/smoke.hcl and docs/studies.md); the examples
below are the usual path through one.

For CI: killchain run --tasks A,B --sample N --junit FILE hcl/ci.hcl judges the study's
threshold blocks when it ends (exit 99 on a breach; see killchain gate and
docs/ci-gates.md). Stages are decided from what each sandbox actually did (its
effect log), never from what a model asked for (docs/stages.md).

Sandboxes run in Docker (the default), or as hardened pods on a Kubernetes cluster
with sandbox = "kubernetes" and a kubernetes { } block in the study (or --sandbox
kubernetes; docs/kubernetes.md); killchain sandbox gc --kubernetes cleans up after
a killed study. Every command is described in docs/cli.md; docs/ holds one
document per topic.

` + exitHelp(),
		Example: `  killchain validate hcl/smoke.hcl     check a study file
  killchain plan hcl/smoke.hcl         show its cells and run counts
  killchain run hcl/smoke.hcl          run it (Ctrl-C stops; --resume finishes it)
  killchain report runs/smoke          write its tables, figures and report.html to runs/smoke/report/
  killchain recount runs/smoke         re-derive every run's stages from its transcript (0 disagreements)
  killchain doctor hcl/local.hcl       check that Docker and the study's models can be reached`,
		Version:       versionString(),
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetVersionTemplate("{{.Version}}\n")
	root.SetOut(g.stdout)
	root.SetErr(g.stderr)
	root.PersistentFlags().StringVar(&g.logLevel, "log-level", g.envOr("KILLCHAIN_LOG", "warn"),
		"log level: trace, debug, info, warn or error (KILLCHAIN_LOG sets the default)")
	root.AddGroup(
		&cobra.Group{ID: groupStudy, Title: "Studies:"},
		&cobra.Group{ID: groupMachine, Title: "This machine and its sandboxes:"},
		&cobra.Group{ID: groupMeasure, Title: "Measurements and probes:"},
	)
	for _, c := range []struct {
		group string
		cmd   *cobra.Command
	}{
		{groupStudy, newValidateCmd(g)},
		{groupStudy, newPlanCmd(g)},
		{groupStudy, newRunCmd(g)},
		{groupStudy, newReportCmd(g)},
		{groupStudy, newGateCmd(g)},
		{groupStudy, newRecountCmd(g)},
		{groupStudy, newShowCmd(g)},
		{groupStudy, newExportCmd(g)},
		{groupStudy, newTasksCmd(g)},
		{groupStudy, newAttacksCmd(g)},
		{groupMachine, newDoctorCmd(g)},
		{groupMachine, newImagesCmd(g)},
		{groupMachine, newSandboxCmd(g)},
		{groupMachine, newVersionCmd(g)},
		{groupMeasure, newBenchCmd(g)},
		{groupMeasure, newProbesCmd(g)},
	} {
		c.cmd.GroupID = c.group
		root.AddCommand(c.cmd)
	}
	root.SetHelpCommandGroupID(groupMachine)
	root.SetCompletionCommandGroupID(groupMachine)
	markUsage(root)
	return root
}
