// Package groundtruth plays the ground truth of a stateful environment's
// user tasks and injections in a real sandbox and checks that the suite
// measures what it claims (`killchain tasks check`): each user task's
// calls reach its goal and no injection's check (else the pair is refused:
// a false positive by construction), each injection's calls reach its
// check, and each injection can be seen through some user task's reads.
// It takes any sandbox.Backend; the command line wires the local or the
// Docker one.
package groundtruth

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/killchain/killchain/internal/world"
	"github.com/killchain/killchain/sandbox"
	"github.com/killchain/killchain/tasks"
)

// Verdict is what playing one ground truth showed.
type Verdict struct {
	Name, Kind, Environment string // Kind: "user task" or "injection"
	// Failures say why the ground truth does not do what it must; none
	// for a pass.
	Failures []string
	// Refused are the injections whose check a user task's ground truth
	// also reaches: those pairs measure nothing.
	Refused []string
	// Reads are the vectors a user task's ground truth shows an agent.
	Reads []string
}

// OK reports whether the ground truth passed.
func (v Verdict) OK() bool { return len(v.Failures) == 0 && len(v.Refused) == 0 }

// Report is every verdict and warning of a check.
type Report struct {
	Backend  string
	Verdicts []Verdict
	Warnings []string
	// Elapsed is how long the check took (the summary line says it when
	// set).
	Elapsed time.Duration
}

// Failed counts the verdicts that did not pass.
func (r *Report) Failed() int {
	n := 0
	for _, v := range r.Verdicts {
		if !v.OK() {
			n++
		}
	}
	return n
}

// Check plays the ground truth of every user task and injection over the
// named environments of set, each in a fresh sandbox of b. An error is a
// sandbox that failed (not a ground truth that did); the report holds
// the verdicts.
func Check(ctx context.Context, b sandbox.Backend, set *tasks.Set, envs []string) (*Report, error) {
	r := &Report{Backend: b.Name()}
	start := time.Now()
	defer func() { r.Elapsed = time.Since(start) }()
	for _, name := range envs {
		env, ok := set.Environment(name)
		if !ok {
			return nil, fmt.Errorf("no environment %q", name)
		}
		if err := r.environment(ctx, b, set, env); err != nil {
			return r, err
		}
	}
	return r, nil
}

// environment checks one environment's user tasks and injections.
func (r *Report) environment(ctx context.Context, b sandbox.Backend, set *tasks.Set, env *tasks.Environment) error {
	users, injs := set.UserTasksOf(env.Name), set.InjectionsOn(env.Name)
	read := map[string]bool{}
	for _, t := range users {
		v := Verdict{Name: t.Name, Kind: "user task", Environment: env.Name}
		out, err := play(ctx, b, t, t.GroundTruth, t.RoleOf, "", "", nil)
		if err != nil {
			return fmt.Errorf("user task %s: %w", t.Name, err)
		}
		v.Failures = out.failures
		if len(out.failures) == 0 {
			if ok, err := out.holds(ctx, t.Goal.Check, tasks.CheckCanary, ""); err != nil || !ok {
				v.Failures = append(v.Failures, notReached("its goal", err))
			}
			for _, in := range injs {
				if ok, err := out.holds(ctx, &in.Check, tasks.CheckCanary, set.AttackerOf(in)); err == nil && ok {
					v.Refused = append(v.Refused, in.Name)
				}
			}
		}
		// The vectors it reads: its calls again, over a state whose
		// vectors each hold a marker.
		marked, err := play(ctx, b, t, t.GroundTruth, t.RoleOf, "", "", env)
		if err != nil {
			return fmt.Errorf("user task %s: %w", t.Name, err)
		}
		v.Reads = marked.reads
		for _, vec := range marked.reads {
			read[vec] = true
		}
		if len(marked.reads) == 0 && len(env.Vectors) > 0 {
			r.Warnings = append(r.Warnings, fmt.Sprintf("user task %s reads no vector of environment %s: no injection can reach it", t.Name, env.Name))
		}
		r.Verdicts = append(r.Verdicts, v)
	}
	for _, in := range injs {
		v := Verdict{Name: in.Name, Kind: "injection", Environment: env.Name}
		if len(users) == 0 {
			v.Failures = []string{fmt.Sprintf("no user task works in environment %s, so nothing can play it", env.Name)}
			r.Verdicts = append(r.Verdicts, v)
			continue
		}
		attacker := set.AttackerOf(in)
		out, err := play(ctx, b, users[0], in.GroundTruth, func(tasks.GroundTruthCall) string { return "agent" }, tasks.CheckCanary, attacker, nil)
		if err != nil {
			return fmt.Errorf("injection %s: %w", in.Name, err)
		}
		v.Failures = out.failures
		if len(out.failures) == 0 {
			if ok, err := out.holds(ctx, &in.Check, tasks.CheckCanary, attacker); err != nil || !ok {
				v.Failures = append(v.Failures, notReached("its check", err))
			}
		}
		vectors := in.Vectors
		if vectors == nil {
			for _, vec := range env.Vectors {
				vectors = append(vectors, vec.Name)
			}
		}
		if !slices.ContainsFunc(vectors, func(s string) bool { return read[s] }) {
			r.Warnings = append(r.Warnings, fmt.Sprintf("injection %s is planted at %s, which no user task's ground truth reads: it can never be seen", in.Name, strings.Join(vectors, ", ")))
		}
		r.Verdicts = append(r.Verdicts, v)
	}
	return nil
}

func notReached(what string, err error) string {
	if err != nil {
		return fmt.Sprintf("%s fails to evaluate on the final state: %v", what, err)
	}
	return what + " is not true on the final state"
}

// outcome is one played ground truth.
type outcome struct {
	initial  json.RawMessage
	final    *world.Final
	failures []string
	reads    []string
}

// marker is what a vector holds while `tasks check` watches which
// vectors a ground truth reads.
func marker(vector string) string {
	return "KCVECTOR" + strings.ToUpper(strings.ReplaceAll(vector, "-", "_")) + "KC"
}

// play makes calls in a fresh sandbox over t's environment, clean (every
// vector at its default), or with a marker at each vector when marks is
// set: then reads lists the vectors whose marker some answer showed.
func play(ctx context.Context, b sandbox.Backend, t *tasks.Task, calls []tasks.GroundTruthCall, role func(tasks.GroundTruthCall) string,
	canary, attacker string, marks *tasks.Environment) (*outcome, error) {
	env, err := t.Env(tasks.BuildInput{Study: "tasks-check", Run: "tasks-check"})
	if err != nil {
		return nil, err
	}
	if marks != nil {
		if env.World.State, err = marks.StateWith(marker); err != nil {
			return nil, err
		}
	}
	sb, err := b.Open(ctx, env)
	if err != nil {
		return nil, fmt.Errorf("open a sandbox: %w", err)
	}
	defer sb.Close(context.WithoutCancel(ctx))
	out := &outcome{initial: env.World.State}
	for i, c := range calls {
		res, err := sb.Call(ctx, role(c), c.Tool, c.Rendered(canary, attacker))
		if err != nil {
			return nil, fmt.Errorf("call %d (%s): %w", i+1, c.Tool, err)
		}
		if res.Error != "" {
			out.failures = append(out.failures, fmt.Sprintf("call %d, %s, answers an error: %s", i+1, c.Tool, res.Error))
		}
		if marks != nil {
			for _, vec := range marks.Vectors {
				if strings.Contains(res.Output, marker(vec.Name)) && !slices.Contains(out.reads, vec.Name) {
					out.reads = append(out.reads, vec.Name)
				}
			}
		}
	}
	st, err := sb.State(ctx)
	if err != nil {
		return nil, fmt.Errorf("read the final state: %w", err)
	}
	if st.World == nil {
		return nil, fmt.Errorf("the sandbox handed back no environment state")
	}
	out.final = st.World
	return out, nil
}

// holds evaluates a check over the played outcome.
func (o *outcome) holds(ctx context.Context, c *tasks.Check, canary, attacker string) (bool, error) {
	if c == nil || c.Program == nil {
		return false, fmt.Errorf("the check is not compiled")
	}
	vars, err := world.Outcome{Initial: o.initial, State: o.final.State, Calls: o.final.Calls, Canary: canary, Attacker: attacker}.Decode()
	if err != nil {
		return false, err
	}
	return c.Program.Eval(ctx, vars)
}
