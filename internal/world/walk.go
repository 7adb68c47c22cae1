package world

import (
	"fmt"
	"maps"

	celast "cel.dev/cel-go/common/ast"
	"cel.dev/cel-go/common/types"
)

// walker checks an expression's field selections against the shapes of
// its variables, which CEL's own checker types only as maps: a field a
// state, a record or a tool's parameters do not have is an error at
// validate time, with the names that are there. Selections inside has()
// test presence and are not checked; an index with a string ('x') is the
// way to reach a key a state may not have yet.
type walker struct {
	ast      *celast.AST
	problems []Problem
}

func (w *walker) errorf(id int64, format string, args ...any) {
	w.errorAt(id, 1, format, args...)
}

// errorAt reports a problem at the expression's place plus shift columns
// (a selection's place is its dot; shift 2 points at the field).
func (w *walker) errorAt(id int64, shift int, format string, args ...any) {
	loc := w.ast.SourceInfo().GetStartLocation(id)
	w.problems = append(w.problems, Problem{Line: max(1, loc.Line()), Column: loc.Column() + shift, Message: fmt.Sprintf(format, args...)})
}

// shape walks e and returns the shape of its value (anyShape where it is
// not known).
func (w *walker) shape(e celast.Expr, scope map[string]*Shape) *Shape {
	switch e.Kind() {
	case celast.IdentKind:
		if s, ok := scope[e.AsIdent()]; ok && s != nil {
			return s
		}
		return anyShape
	case celast.LiteralKind:
		switch e.AsLiteral().(type) {
		case types.String:
			return &Shape{Kind: String}
		case types.Double, types.Int, types.Uint:
			return &Shape{Kind: Number}
		case types.Bool:
			return &Shape{Kind: Bool}
		case types.Null:
			return &Shape{Kind: Null}
		}
		return anyShape
	case celast.SelectKind:
		sel := e.AsSelect()
		op := w.shape(sel.Operand(), scope)
		if sel.IsTestOnly() {
			return &Shape{Kind: Bool}
		}
		f, err := op.field(sel.FieldName())
		if err != nil {
			w.errorAt(e.ID(), 2, "%v", err)
			return anyShape
		}
		return f
	case celast.ListKind:
		s := &Shape{Kind: List}
		for _, el := range e.AsList().Elements() {
			s.Elem = merge(s.Elem, w.shape(el, scope))
		}
		if s.Elem == nil {
			s.Elem = anyShape
		}
		return s
	case celast.MapKind:
		s := &Shape{Kind: Object, Fields: map[string]*Shape{}, Elem: anyShape}
		for _, en := range e.AsMap().Entries() {
			me := en.AsMapEntry()
			w.shape(me.Key(), scope)
			v := w.shape(me.Value(), scope)
			if me.Key().Kind() == celast.LiteralKind {
				if k, ok := me.Key().AsLiteral().(types.String); ok {
					s.Fields[string(k)] = v
					continue
				}
			}
			s.Fields = nil // a key computed at run time: the fields are not known
		}
		return s
	case celast.CallKind:
		return w.call(e, scope)
	case celast.ComprehensionKind:
		return w.comprehension(e, scope)
	}
	return anyShape
}

func (w *walker) call(e celast.Expr, scope map[string]*Shape) *Shape {
	c := e.AsCall()
	var target *Shape
	if c.IsMemberFunction() {
		target = w.shape(c.Target(), scope)
	}
	args := make([]*Shape, len(c.Args()))
	for i, a := range c.Args() {
		args[i] = w.shape(a, scope)
	}
	switch c.FunctionName() {
	case "_[_]", "_[?_]":
		base := args[0]
		if idx := c.Args()[1]; idx.Kind() == celast.LiteralKind {
			if k, ok := idx.AsLiteral().(types.String); ok && base.hasField(string(k)) {
				return base.Fields[string(k)]
			}
		}
		if base.Kind == List || base.Kind == Object {
			return base.Elem
		}
		return anyShape
	case "_+_", "_-_", "_*_", "_/_", "_%_":
		w.intLiteral(c, args)
		if c.FunctionName() == "_+_" && args[0].Kind == List && args[1].Kind == List {
			return &Shape{Kind: List, Elem: merge(args[0].Elem, args[1].Elem)}
		}
		return merge(args[0], args[1])
	case "_?_:_":
		return merge(args[1], args[2])
	case "with":
		if target != nil && target.Kind == Object && len(args) == 1 && args[0].Kind == Object {
			return merge(target, args[0])
		}
		return target
	}
	return anyShape
}

// intLiteral flags arithmetic between an integer literal and a number of
// the state or of the arguments: those are doubles, and CEL does not mix
// the two (write 5.0, not 5).
func (w *walker) intLiteral(c celast.CallExpr, args []*Shape) {
	for i, a := range c.Args() {
		other := args[1-i]
		if a.Kind() != celast.LiteralKind || other.Kind != Number {
			continue
		}
		if n, ok := a.AsLiteral().(types.Int); ok && c.Args()[1-i].Kind() != celast.LiteralKind {
			w.errorf(a.ID(), "numbers in a state and in arguments are doubles, and CEL does not mix them with integers: write %d.0", int64(n))
		}
	}
}

func (w *walker) comprehension(e celast.Expr, scope map[string]*Shape) *Shape {
	c := e.AsComprehension()
	rng := w.shape(c.IterRange(), scope)
	inner := maps.Clone(scope)
	switch rng.Kind {
	case List:
		if c.HasIterVar2() {
			inner[c.IterVar()] = &Shape{Kind: Number}
			inner[c.IterVar2()] = rng.Elem
		} else {
			inner[c.IterVar()] = rng.Elem
		}
	case Object:
		inner[c.IterVar()] = &Shape{Kind: String}
		if c.HasIterVar2() {
			inner[c.IterVar2()] = rng.Elem
		}
	default:
		inner[c.IterVar()] = anyShape
		if c.HasIterVar2() {
			inner[c.IterVar2()] = anyShape
		}
	}
	w.shape(c.AccuInit(), scope)
	inner[c.AccuVar()] = anyShape
	w.shape(c.LoopCondition(), inner)
	w.shape(c.LoopStep(), inner)
	w.shape(c.Result(), inner)
	return anyShape
}
