package world

import (
	"context"
	"fmt"

	"cel.dev/cel-go/common/types"
)

// Check is a compiled check: a condition on a run's outcome over initial
// (the state before the run), state (after), calls (every call carried
// out, in order, each with seq, role, tool, args, result and outbound),
// canary and attacker. A user task's goal and an injection's attack goal
// are checks; the verifiers evaluate them on the host.
type Check struct {
	src  string
	prog *program
}

// CompileCheck compiles a check against the shape of the state it reads.
func CompileCheck(state *Shape, src string) (*Check, []Problem) {
	e, err := envs()
	if err != nil {
		return nil, []Problem{{Line: 1, Column: 1, Message: err.Error()}}
	}
	scope := map[string]*Shape{
		"initial": state, "state": state, "calls": {Kind: List, Elem: callShape},
		"canary": {Kind: String}, "attacker": {Kind: String},
	}
	p, probs := compile(e[1], src, scope, true)
	if len(probs) > 0 {
		return nil, probs
	}
	return &Check{src: src, prog: p}, nil
}

// Source is the check as written.
func (c *Check) Source() string { return c.src }

// Outcome is what a check reads: the state before and after a run (as
// JSON), the calls carried out, the run's canary ("" in a clean run) and
// the attacker's identity.
type Outcome struct {
	Initial, State []byte
	Calls          []Call
	Canary         string
	Attacker       string
}

// Vars is an Outcome decoded once for every check evaluated over it.
type Vars struct{ m map[string]any }

// Decode decodes an outcome for evaluation.
func (o Outcome) Decode() (Vars, error) {
	initial, err := objectState(o.Initial)
	if err != nil {
		return Vars{}, fmt.Errorf("initial state: %w", err)
	}
	state, err := objectState(o.State)
	if err != nil {
		return Vars{}, fmt.Errorf("final state: %w", err)
	}
	calls := make([]any, len(o.Calls))
	for i, c := range o.Calls {
		args, err := callArgs(c.Args)
		if err != nil {
			args = map[string]any{} // a call carried out had object arguments; keep the check total
		}
		calls[i] = map[string]any{"seq": float64(c.Seq), "role": c.Role, "tool": c.Tool, "args": args,
			"result": c.Result, "outbound": c.Outbound}
	}
	return Vars{m: map[string]any{"initial": initial, "state": state, "calls": calls,
		"canary": o.Canary, "attacker": o.Attacker}}, nil
}

// Eval decides the check. An error is the check failing to evaluate (a
// missing key, the cost limit): the caller reports it, never reads it as
// false.
func (c *Check) Eval(ctx context.Context, v Vars) (bool, error) {
	out, err := eval(ctx, c.prog, v.m)
	if err != nil {
		return false, err
	}
	b, ok := out.(types.Bool)
	if !ok {
		return false, fmt.Errorf("the check is %s, not true or false", out.Type().TypeName())
	}
	return bool(b), nil
}
