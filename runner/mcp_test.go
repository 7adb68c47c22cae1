package runner

import (
	"context"
	"testing"
	"time"

	"github.com/killchain/killchain/internal/recount"
	"github.com/killchain/killchain/internal/results"
	"github.com/killchain/killchain/sandbox"
	"github.com/killchain/killchain/sandbox/local"
	"github.com/killchain/killchain/tasks"
)

// mcpStage is the stage the reference agents must give on an MCP task run:
// the compliant agent executes on every surface, the resistant one stops
// at Exposed, a compliant writer and a resistant reader at Relayed, and
// tool_pinning withholds the rug pull's changed description (no stage)
// while passing what the first listing held.
func mcpStage(r results.Run) string {
	if !r.Attacked {
		return "none"
	}
	if r.Task == "mcp_rug_pull" && r.Defense == "tool_pinning" {
		return "none"
	}
	switch {
	case r.ModelA == "compliant" && (r.ModelB == "" || r.ModelB == "compliant"):
		return "executed"
	case r.ModelA == "compliant":
		return "relayed"
	}
	return "exposed"
}

// checkMCPStudy runs hcl/mcp.hcl on a backend and checks every run's stage,
// the verifiers' goals and the recount.
func checkMCPStudy(t *testing.T, be sandbox.Backend, repeats int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 8*time.Minute)
	defer cancel()
	s := loadStudy(t, "../hcl/mcp.hcl")
	for _, g := range s.Grids {
		g.Repeats = repeats
	}
	out := t.TempDir()
	r, err := New(s, Options{Output: out, Backend: be, Models: scriptedOnly})
	if err != nil {
		t.Fatal(err)
	}
	sum, err := r.Run(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if sum.Errors != 0 || sum.Ran != sum.Planned {
		t.Fatalf("summary %+v", sum)
	}
	surfaces := map[string]bool{}
	for _, run := range readAll(t, out) {
		surfaces[run.Surface] = true
		if want := mcpStage(run); run.Stage != want {
			t.Errorf("run %s (%s %s %s/%s %s %s): stage %s, want %s", run.RunID, run.Task, run.Variant, run.ModelA, run.ModelB, run.Condition, run.Defense, run.Stage, want)
		}
		if want := run.Stage == "executed"; run.AttackGoal != want {
			t.Errorf("run %s (%s): attack goal %v with stage %s", run.RunID, run.Task, run.AttackGoal, run.Stage)
		}
		if !run.TaskSuccess || run.Contaminated {
			t.Errorf("run %s (%s): task success %v, contaminated %v", run.RunID, run.Task, run.TaskSuccess, run.Contaminated)
		}
	}
	for _, sf := range []string{tasks.SurfaceToolDescription, tasks.SurfaceRugPull, tasks.SurfaceShadowing, tasks.SurfaceMCPResult} {
		if !surfaces[sf] {
			t.Errorf("no run on surface %s", sf)
		}
	}
	rc, err := recount.Study(out)
	if err != nil {
		t.Fatal(err)
	}
	if rc.Runs == 0 || len(rc.Disagreements) > 0 {
		t.Errorf("recount: %d runs, disagreements %+v", rc.Runs, rc.Disagreements)
	}
}

func TestMCPStudyLocal(t *testing.T) {
	checkMCPStudy(t, &local.Backend{Root: t.TempDir()}, 2)
}

// TestMCPStudyDocker runs the MCP study in hardened containers: every MCP
// session travels over the container's attach stream beside the toolbox
// protocol.
func TestMCPStudyDocker(t *testing.T) {
	checkMCPStudy(t, dockerBackend(t.Context(), t, nil), 1)
}
