package world

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"cel.dev/cel-go/common/types"
	"cel.dev/cel-go/common/types/ref"
)

// ToolDef is how an environment tool behaves, as the sandbox receives it:
// guards, then updates, then the result, each a CEL expression over
// state, args and role.
type ToolDef struct {
	Name       string          `json:"name"`
	Parameters json.RawMessage `json:"parameters,omitempty"` // JSON schema of the arguments object
	// Guards are tried in order before anything changes: the first whose
	// condition holds answers the call with its message as a tool error.
	Guards []Guard `json:"error_if,omitempty"`
	// Updates are computed over the state as it stood before the call and
	// then applied together, or not at all.
	Updates []Update `json:"update,omitempty"`
	// Result is the answer, over the state after the updates ("" answers
	// "NAME done"); a value that is not a string is shown as JSON.
	Result   string `json:"result,omitempty"`
	Outbound bool   `json:"outbound,omitempty"`
}

// Guard is one error_if entry: when When holds, the call fails with Message.
type Guard struct {
	When    string `json:"when"`
	Message string `json:"message"`
}

// Update sets the state at a dotted path (balance, profile.address) to
// the value of Expr.
type Update struct {
	Path string `json:"path"`
	Expr string `json:"expr"`
}

// FieldProblem is a Problem in one expression of a tool: Field says which
// ("result", "error_if 2", "update balance").
type FieldProblem struct {
	Field string
	Problem
}

func (p FieldProblem) Error() string { return p.Field + ": " + p.Problem.Error() }

// Tool is a compiled ToolDef.
type Tool struct {
	def     ToolDef
	params  *Shape
	schema  map[string]any
	guards  []*program
	updates []compiledUpdate
	result  *program
}

type compiledUpdate struct {
	path []string
	prog *program
}

// CompileTool compiles a tool against the shape of the state it runs
// over. It returns every problem, each naming its expression.
func CompileTool(state *Shape, def ToolDef) (*Tool, []FieldProblem) {
	e, err := envs()
	if err != nil {
		return nil, []FieldProblem{{Field: "environment", Problem: Problem{Line: 1, Column: 1, Message: err.Error()}}}
	}
	var probs []FieldProblem
	add := func(field string, ps []Problem) {
		for _, p := range ps {
			probs = append(probs, FieldProblem{Field: field, Problem: p})
		}
	}
	t := &Tool{def: def}
	params, err := SchemaShape(def.Parameters)
	if err != nil {
		add("parameters", []Problem{{Line: 1, Column: 1, Message: err.Error()}})
		params = &Shape{Kind: Object, Elem: anyShape}
	}
	t.params = params
	if len(def.Parameters) > 0 {
		_ = json.Unmarshal(def.Parameters, &t.schema)
	}
	scope := map[string]*Shape{"state": state, "args": params, "role": {Kind: String}}
	for i, g := range def.Guards {
		p, ps := compile(e[0], g.When, scope, true)
		add(fmt.Sprintf("error_if %d", i+1), ps)
		t.guards = append(t.guards, p)
	}
	seen := map[string]bool{}
	for _, u := range def.Updates {
		field := "update " + u.Path
		path, err := statePath(state, u.Path)
		if err != nil {
			add(field, []Problem{{Line: 1, Column: 1, Message: err.Error()}})
		}
		if seen[u.Path] {
			add(field, []Problem{{Line: 1, Column: 1, Message: "the path is updated twice"}})
		}
		seen[u.Path] = true
		p, ps := compile(e[0], u.Expr, scope, false)
		add(field, ps)
		t.updates = append(t.updates, compiledUpdate{path: path, prog: p})
	}
	if def.Result != "" {
		p, ps := compile(e[0], def.Result, scope, false)
		add("result", ps)
		t.result = p
	}
	if len(probs) > 0 {
		return nil, probs
	}
	return t, nil
}

// statePath splits a dotted update path and checks that it names a field
// of the state, object by object.
func statePath(state *Shape, p string) ([]string, error) {
	parts := strings.Split(p, ".")
	s := state
	for i, part := range parts {
		if !plainName(part) {
			return nil, fmt.Errorf("%q is not a path of field names joined by dots", p)
		}
		f, err := s.field(part)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", strings.Join(parts[:i+1], "."), err)
		}
		s = f
	}
	return parts, nil
}

// errTool is a failure the calling agent is shown: nothing changed.
type errTool struct{ msg string }

func (e errTool) Error() string { return e.msg }

// run answers one call over state: the new state (state itself when
// nothing changed) and the answer's text, or an errTool.
func (t *Tool) run(ctx context.Context, state map[string]any, args map[string]any, role string) (map[string]any, string, error) {
	if err := checkArgs(t.schema, args); err != nil {
		return nil, "", errTool{"arguments: " + err.Error()}
	}
	// fail is an expression's failure: the agent's tool error, unless ctx
	// ended (then the call itself failed).
	fail := func(format string, a ...any) (map[string]any, string, error) {
		if err := ctx.Err(); err != nil {
			return nil, "", err
		}
		return nil, "", errTool{fmt.Sprintf(format, a...)}
	}
	vars := map[string]any{"state": state, "args": args, "role": role}
	for i, g := range t.guards {
		v, err := eval(ctx, g, vars)
		if err != nil {
			return fail("%s could not check its condition %d: %v", t.def.Name, i+1, err)
		}
		hit, ok := v.(types.Bool)
		if !ok {
			return nil, "", errTool{fmt.Sprintf("%s: condition %d is not true or false", t.def.Name, i+1)}
		}
		if hit {
			return nil, "", errTool{t.def.Guards[i].Message}
		}
	}
	next := state
	if len(t.updates) > 0 {
		values := make([]any, len(t.updates))
		for i, u := range t.updates {
			v, err := eval(ctx, u.prog, vars)
			if err == nil {
				values[i], err = native(v)
			}
			if err != nil {
				return fail("%s could not compute %s: %v", t.def.Name, t.def.Updates[i].Path, err)
			}
		}
		for i, u := range t.updates {
			var err error
			if next, err = setPath(next, u.path, values[i]); err != nil {
				return nil, "", errTool{fmt.Sprintf("%s could not set %s: %v", t.def.Name, t.def.Updates[i].Path, err)}
			}
		}
	}
	if t.result == nil {
		return next, t.def.Name + " done", nil
	}
	vars["state"] = next
	v, err := eval(ctx, t.result, vars)
	if err != nil {
		return fail("%s could not compute its result: %v", t.def.Name, err)
	}
	if s, ok := v.(types.String); ok {
		return next, string(s), nil
	}
	nv, err := native(v)
	if err != nil {
		return nil, "", errTool{fmt.Sprintf("%s: its result %v", t.def.Name, err)}
	}
	return next, Text(nv), nil
}

// eval runs one program; an error is the expression's failure (a missing
// key, a type CEL does not combine, the cost limit) in plain words.
func eval(ctx context.Context, p *program, vars map[string]any) (ref.Val, error) {
	v, _, err := p.prog.ContextEval(ctx, vars)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		if strings.Contains(err.Error(), "cost limit") {
			return nil, errors.New("the expression went past its cost limit")
		}
		return nil, err
	}
	return v, nil
}
