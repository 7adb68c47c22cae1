package world

import (
	"fmt"
	"strings"
	"sync"

	"cel.dev/cel-go/cel"
	"cel.dev/cel-go/common/types"
	"cel.dev/cel-go/common/types/ref"
	"cel.dev/cel-go/common/types/traits"
	"cel.dev/cel-go/ext"
)

// CostLimit bounds one evaluation of one expression, in CEL's cost units
// (about one per value visited): a comprehension over a state of a
// million records stops there instead of holding up a run.
const CostLimit = 10_000_000

// Problem is what is wrong with one expression, at a place inside its
// text: Line and Column count from 1 within the expression.
type Problem struct {
	Line, Column int
	Message      string
}

func (p Problem) Error() string {
	return fmt.Sprintf("%d:%d: %s", p.Line, p.Column, p.Message)
}

// Variables of the two kinds of program.
var (
	toolVars  = []string{"state", "args", "role"}
	checkVars = []string{"initial", "state", "calls", "canary", "attacker"}
)

// envs are the two CEL environments, made once per process.
var envs = sync.OnceValues(func() ([2]*cel.Env, error) {
	common := []cel.EnvOption{
		cel.CrossTypeNumericComparisons(true),
		ext.Strings(), ext.Lists(), ext.Math(), ext.Sets(), ext.Encoders(),
		cel.OptionalTypes(),
		cel.CustomTypeAdapter(adapter),
		withFunction(),
	}
	obj := cel.MapType(cel.StringType, cel.DynType)
	tool, err := cel.NewEnv(append(common,
		cel.Variable("state", obj), cel.Variable("args", obj), cel.Variable("role", cel.StringType))...)
	if err != nil {
		return [2]*cel.Env{}, err
	}
	check, err := cel.NewEnv(append(common,
		cel.Variable("initial", obj), cel.Variable("state", obj),
		cel.Variable("calls", cel.ListType(obj)),
		cel.Variable("canary", cel.StringType), cel.Variable("attacker", cel.StringType))...)
	return [2]*cel.Env{tool, check}, err
})

// withFunction declares m.with(n): the map m with n's entries added or
// replaced; m itself is unchanged. It is how a tool changes one field of
// a record: state.events.map(e, e.id == args.id ? e.with({'start': args.start}) : e).
func withFunction() cel.EnvOption {
	m := cel.MapType(cel.StringType, cel.DynType)
	return cel.Function("with",
		cel.MemberOverload("map_with_map", []*cel.Type{m, m}, m,
			cel.BinaryBinding(func(a, b ref.Val) ref.Val {
				am, ok1 := a.(traits.Mapper)
				bm, ok2 := b.(traits.Mapper)
				if !ok1 || !ok2 {
					return types.NewErr("with: both sides must be maps")
				}
				out := map[string]any{}
				for _, src := range []traits.Mapper{am, bm} {
					it := src.Iterator()
					for it.HasNext() == types.True {
						k := it.Next()
						ks, ok := k.(types.String)
						if !ok {
							return types.NewErr("with: keys must be strings")
						}
						v, err := native(src.Get(k))
						if err != nil {
							return types.WrapErr(err)
						}
						out[string(ks)] = v
					}
				}
				return adapter.NativeToValue(out)
			})))
}

// program is one compiled expression.
type program struct {
	src  string
	prog cel.Program
}

// compile parses, type-checks and plans one expression against the
// shapes of its variables. Every problem is returned, with its place.
func compile(env *cel.Env, src string, scope map[string]*Shape, wantBool bool) (*program, []Problem) {
	if strings.TrimSpace(src) == "" {
		return nil, []Problem{{Line: 1, Column: 1, Message: "the expression is empty"}}
	}
	ast, iss := env.Compile(src)
	if iss != nil && iss.Err() != nil {
		var out []Problem
		for _, e := range iss.Errors() {
			out = append(out, Problem{Line: max(1, e.Location.Line()), Column: e.Location.Column() + 1, Message: e.Message})
		}
		return nil, out
	}
	w := &walker{ast: ast.NativeRep()}
	w.shape(w.ast.Expr(), scope)
	if out := ast.OutputType(); wantBool && out != cel.BoolType && out != cel.DynType {
		w.problems = append(w.problems, Problem{Line: 1, Column: 1, Message: fmt.Sprintf("the condition is %s, not true or false", out)})
	}
	if len(w.problems) > 0 {
		return nil, w.problems
	}
	prog, err := env.Program(ast, cel.CostLimit(CostLimit), cel.InterruptCheckFrequency(256),
		cel.EvalOptions(cel.OptOptimize))
	if err != nil {
		return nil, []Problem{{Line: 1, Column: 1, Message: err.Error()}}
	}
	return &program{src: src, prog: prog}, nil
}
