package tasks

import (
	"fmt"
	"slices"
	"strings"

	"github.com/hashicorp/hcl/v2"

	"github.com/killchain/killchain/internal/hcldiag"
	"github.com/killchain/killchain/internal/tools"
	"github.com/killchain/killchain/internal/vocab"
	"github.com/killchain/killchain/internal/world"
)

// A user task is a task block that names an environment: its roles work
// in the environment's state with its tools (and built-in ones), its goal
// is a check on the state after the run, and its ground truth the calls
// that reach it. Its data is the environment's, so the blocks that hold a
// stateless task's data are not for it.

// notInUserTask are the blocks of a stateless task a user task cannot
// hold, and why.
var notInUserTask = map[string]string{
	"page": "its data is the environment's state", "note": "its data is the environment's state",
	"record": "its data is the environment's state", "document": "its data is the environment's state",
	"clip": "its data is the environment's state", "tool": "its tools are the environment's (tool blocks in the environment block)",
	"server": "its tools are the environment's", "variant": "its variants are the injections on its environment",
	"attack":    "the attacker's goals are the injections on its environment (injection blocks)",
	"workspace": "a reward-hack task has no environment",
}

// userShape reports what a user task holds that only a stateless task
// may: its blocks and attributes.
func (d *decoder) userShape(t *Task, blocks []*hcl.Block) {
	for _, b := range blocks {
		if why, ok := notInUserTask[b.Type]; ok {
			rng := b.TypeRange
			d.l.Errorf(&rng, "Not in a task over an environment", "Task %q names environment %q, so it holds no %s block: %s.", t.Name, d.envName, b.Type, why)
		}
	}
	for _, attr := range []string{"family", "attack_goal_only", "tools_from"} {
		if d.taskBlock.Has(attr) {
			d.l.Errorf(d.taskBlock.Rng(attr), "Not in a task over an environment", "Task %q names environment %q; %s applies to tasks without one.", t.Name, d.envName, attr)
		}
	}
	if g := d.goal; g != nil {
		for _, attr := range []string{"recipient", "key_facts"} {
			if g.Has(attr) {
				d.l.Errorf(g.Rng(attr), "Not in a task over an environment", "The goal of a task over an environment is its check on the state after the run; %s applies to tasks without one.", attr)
			}
		}
	}
	if t.Mode != vocab.Single && t.Mode != vocab.Pipeline && d.taskBlock.OK("mode") && slices.Contains(Modes, string(t.Mode)) {
		d.l.Errorf(d.taskBlock.Rng("mode"), "Relay over an environment", "A task over an environment is %q (one role) or %q (two or more roles in sequence over one state); %q relays through memory or a delegation message.", vocab.Single, vocab.Pipeline, t.Mode)
	}
}

// checkStateless reports what only a task over an environment may hold.
func (d *decoder) checkStateless(t *Task) {
	if t.Mode == vocab.Pipeline {
		d.l.Errorf(d.taskBlock.Rng("mode"), "Pipeline without an environment", "A pipeline runs its roles in sequence over one environment's state; name it with environment = \"…\".")
	}
	if d.goal != nil && d.goal.Has("check") {
		d.l.Errorf(d.goal.Rng("check"), "Check without an environment", "A check is a condition on an environment's state after the run; name the task's environment with environment = \"…\".")
	}
	if len(d.gt) > 0 {
		d.l.Errorf(d.gt[0].bc.Block.DefRange.Ptr(), "Ground truth without an environment", "Ground truth is played over an environment's state; name the task's environment with environment = \"…\".")
	}
}

// checkUser checks a user task once Link has found its environment.
func (d *decoder) checkUser(t *Task) {
	env := t.Environment
	switch {
	case t.Mode == vocab.Single && len(t.Roles) != 1:
		d.l.Errorf(d.taskBlock.Label(), "Wrong number of roles", "A single task has one role block; task %q has %d (a pipeline, mode = %q, runs two or more in sequence).", t.Name, len(t.Roles), vocab.Pipeline)
		return
	case t.Mode == vocab.Pipeline && len(t.Roles) < 2:
		d.l.Errorf(d.taskBlock.Label(), "Wrong number of roles", "A pipeline runs two or more roles in sequence over the environment; task %q has %d.", t.Name, len(t.Roles))
		return
	}
	d.checkRoleTools(t)
	switch {
	case d.goal == nil || t.Goal.Check == nil:
		d.l.Errorf(d.taskBlock.Label(), "Missing goal check", "A task over an environment needs goal { check = \"…\" }: a condition (CEL) on the state after the run, over initial, state and calls.")
	case t.Goal.Check.Source != "":
		t.Goal.Check.Program = d.compileCheck(env, d.goal.Attrs["check"].Expr, t.Goal.Check.Source, "The goal's check")
	}
	if len(d.gt) == 0 {
		d.l.Errorf(d.taskBlock.Label(), "Missing ground truth", "A task over an environment needs ground_truth { call \"tool\" { args = { … } } }: the calls that reach its goal; `killchain tasks check` plays them and requires it.")
	}
	d.checkCalls(t, env)
	if !d.taskBlock.Has("payload_tools") {
		t.PayloadTools = t.statePayloadTools()
	}
	d.checkPayloadTools(t)
}

// statePayloadTools are the default payload tools of a user task: the
// environment's tools that answer from the state (not outbound), offered
// to its first role.
func (t *Task) statePayloadTools() []string {
	var out []string
	for _, tl := range t.Environment.Tools {
		if !tl.Outbound && strings.Contains(tl.Def.Result, "state") && len(t.Roles) > 0 && slices.Contains(t.Roles[0].Tools, tl.Name) {
			out = append(out, tl.Name)
		}
	}
	return out
}

// checkInjection checks an injection against its environment.
func (d *decoder) checkInjection(in *Injection, env *Environment, bc *hcldiag.Block) {
	names := make([]string, len(env.Vectors))
	for i, v := range env.Vectors {
		names[i] = v.Name
	}
	if len(names) == 0 {
		d.l.Errorf(bc.Rng("environment"), "Environment without vectors", "Environment %q declares no vector, so injection %q could be planted nowhere; add vector blocks and {{PAYLOAD:name}} in its state.", env.Name, in.Name)
	}
	for i, v := range in.Vectors {
		if !slices.Contains(names, v) {
			hint := ""
			if best := hcldiag.Closest(v, names); best != "" {
				hint = fmt.Sprintf("; did you mean %q?", best)
			}
			d.l.Errorf(bc.Elem("vectors", i), "Unknown vector", "Environment %q declares no vector %q%s%s.", env.Name, v, hint, vectorList(names))
		}
	}
	if in.Check.Source != "" {
		in.Check.Program = d.compileCheck(env, bc.Attrs["check"].Expr, in.Check.Source, "The injection's check")
	}
	d.checkCalls(nil, env)
}

// compileCheck compiles a check against the environment's state and
// reports its problems where they stand.
func (d *decoder) compileCheck(env *Environment, expr hcl.Expression, src, what string) *world.Check {
	c, probs := world.CompileCheck(env.shape(), src)
	for _, p := range probs {
		d.exprProblem(expr, true, p, what)
	}
	return c
}

// checkCalls checks the decoder's ground truth: each call's tool exists,
// is offered to the role that makes it (a user task's, t), and its
// arguments fit the tool's parameters.
func (d *decoder) checkCalls(t *Task, env *Environment) {
	for _, c := range d.gt {
		spec, ok := env.spec(c.call.Tool)
		if !ok {
			d.l.Errorf(c.bc.Label(), "Unknown tool", "%q is neither a built-in tool nor a tool of environment %q; %s.", c.call.Tool, env.Name, env.knownTools(c.call.Tool))
			continue
		}
		if t != nil && len(t.Roles) > 0 {
			role, rng := t.Roles[0], c.bc.Label()
			if c.call.Role != "" {
				rng = c.bc.Rng("role")
				i := slices.IndexFunc(t.Roles, func(r Role) bool { return r.Name == c.call.Role })
				if i < 0 {
					d.l.Errorf(rng, "Unknown role", "Task %q has no role %q (its roles: %s).", t.Name, c.call.Role, strings.Join(roleNames(t), ", "))
					continue
				}
				role = t.Roles[i]
			}
			if !slices.Contains(role.Tools, c.call.Tool) {
				d.l.Errorf(rng, "Tool not offered", "Role %q of task %q is not offered %q, so it cannot make this call; add it to the role's tools or give the call another role.", role.Name, t.Name, c.call.Tool)
			}
		}
		params := tools.Properties(spec.Parameters)
		bad := false
		for _, k := range sortedKeys(c.args) {
			if !slices.Contains(params, k) {
				bad = true
				hint := ""
				if best := hcldiag.Closest(k, params); best != "" {
					hint = fmt.Sprintf("; did you mean %q?", best)
				}
				d.l.Errorf(c.bc.KeyName("args", k), "Unknown argument", "Tool %q takes no argument %q%s (%s).", c.call.Tool, k, hint, paramList(params))
			}
		}
		if err := world.CheckArgs(spec.Parameters, c.args); err != nil && !bad {
			d.l.Errorf(c.bc.Rng("args"), "Invalid arguments", "The call of %q does not fit its parameters: %v.", c.call.Tool, err)
		}
	}
}

func roleNames(t *Task) []string {
	out := make([]string, len(t.Roles))
	for i, r := range t.Roles {
		out[i] = r.Name
	}
	return out
}

// spec is a tool as the environment's tasks are offered it: one of the
// environment's, else a built-in one.
func (e *Environment) spec(name string) (tools.Spec, bool) {
	for _, tl := range e.Tools {
		if tl.Name == name {
			return tl.Spec(), true
		}
	}
	return tools.Lookup(name)
}

// knownTools suggests the closest tool and lists them all.
func (e *Environment) knownTools(name string) string {
	names := slices.Clone(tools.Names())
	for _, tl := range e.Tools {
		names = append(names, tl.Name)
	}
	slices.Sort(names)
	hint := ""
	if best := hcldiag.Closest(name, names); best != "" {
		hint = fmt.Sprintf("did you mean %q? ", best)
	}
	return hint + "known tools: " + strings.Join(names, ", ")
}

// shape is the shape of the environment's state, for compiling checks.
func (e *Environment) shape() *world.Shape { return world.ShapeOf(e.State) }
