package runner

import (
	"fmt"
	"slices"
	"strings"

	"github.com/killchain/killchain/internal/plural"
	"github.com/killchain/killchain/internal/study"
	"github.com/killchain/killchain/sandbox"
	"github.com/killchain/killchain/tasks"
)

// CapabilityError is a plan refused because some of its tasks need what
// the chosen sandbox backend cannot do.
type CapabilityError struct {
	Backend string
	// Tasks are the refused tasks, sorted, each with what it lacks.
	Tasks []TaskGap
	// Runs is how many planned runs those tasks hold, of Planned.
	Runs, Planned int
}

// TaskGap is one task and the capabilities a backend lacks for it.
type TaskGap struct {
	Task    string
	Missing []sandbox.Capability
}

func (e *CapabilityError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "sandbox %q cannot run %s of this study (%d of %s):", e.Backend,
		plural.Count(len(e.Tasks), "task"), e.Runs, plural.Count(e.Planned, "planned run"))
	var names []string
	for _, g := range e.Tasks {
		var what []string
		for _, c := range g.Missing {
			what = append(what, fmt.Sprintf("%s (%s)", c, c.Describe()))
		}
		fmt.Fprintf(&b, "\n  %s needs %s, which %q lacks", g.Task, strings.Join(what, ", "), e.Backend)
		names = append(names, g.Task)
	}
	b.WriteString("\n")
	if e.Backend != "docker" {
		b.WriteString("run the study with --sandbox docker, or ")
	}
	it := "it"
	if len(names) > 1 {
		it = "them"
	}
	fmt.Fprintf(&b, "remove %s from the study's grids (or leave %s out of this run with --tasks)", strings.Join(names, ", "), it)
	if e.Backend == "local" && slices.ContainsFunc(e.Tasks, func(g TaskGap) bool { return slices.Contains(g.Missing, sandbox.Shell) }) {
		b.WriteString("; or, to let the agents' shell commands run on this machine, allow it with --allow-host-shell (allow_host_shell = true in the study block)")
	}
	return b.String()
}

// CheckCapabilities refuses a plan that holds runs of a task needing a
// capability (tasks.Task.Needs) the backend named backend lacks; have is
// what it can do (sandbox.CapabilitiesOf, or the backend's options before
// it is opened). plan and run both call it, before any run starts. It
// returns a *CapabilityError, or nil.
func CheckCapabilities(backend string, have []sandbox.Capability, plan []study.Run, set *tasks.Set) error {
	e := &CapabilityError{Backend: backend, Planned: len(plan)}
	gaps := map[string][]sandbox.Capability{}
	for _, r := range plan {
		missing, seen := gaps[r.Task]
		if !seen {
			t, ok := set.Get(r.Task)
			if !ok {
				continue // the plan already refused unknown tasks
			}
			missing = sandbox.Missing(t.Needs(), have)
			gaps[r.Task] = missing
		}
		if len(missing) > 0 {
			e.Runs++
		}
	}
	for name, missing := range gaps {
		if len(missing) > 0 {
			e.Tasks = append(e.Tasks, TaskGap{Task: name, Missing: missing})
		}
	}
	if len(e.Tasks) == 0 {
		return nil
	}
	slices.SortFunc(e.Tasks, func(a, b TaskGap) int { return strings.Compare(a.Task, b.Task) })
	return e
}
