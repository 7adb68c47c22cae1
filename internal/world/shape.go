package world

import (
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/killchain/killchain/internal/hcldiag"
)

// Kind is the kind of a value in a shape.
type Kind int

// Kinds. Any is a value whose shape is not known (an empty list's
// elements, a parameter declared without a type): nothing below it is
// checked.
const (
	Any Kind = iota
	Null
	Bool
	Number
	String
	List
	Object
)

var kindNames = [...]string{"any value", "null", "a boolean", "a number", "a string", "a list", "an object"}

func (k Kind) String() string { return kindNames[k] }

// Shape is what a state, a tool's arguments or a call looks like: the
// names an expression may select, and what each holds. It is inferred
// from the initial state (a list's elements merged) and from a tool's
// parameter schema.
type Shape struct {
	Kind Kind
	// Fields are an object's fields; Elem is a list's elements, or the
	// values of an object used as a dictionary (indexed, not selected).
	Fields map[string]*Shape
	Elem   *Shape
}

var anyShape = &Shape{Kind: Any}

// ShapeOf infers the shape of a state value. A list's element shape merges
// every element's; fields that only some elements have are still known.
func ShapeOf(v any) *Shape {
	switch x := v.(type) {
	case nil:
		return &Shape{Kind: Null}
	case bool:
		return &Shape{Kind: Bool}
	case float64:
		return &Shape{Kind: Number}
	case string:
		return &Shape{Kind: String}
	case []any:
		s := &Shape{Kind: List}
		for _, e := range x {
			s.Elem = merge(s.Elem, ShapeOf(e))
		}
		if s.Elem == nil {
			s.Elem = anyShape
		}
		return s
	case map[string]any:
		s := &Shape{Kind: Object, Fields: make(map[string]*Shape, len(x))}
		for k, e := range x {
			f := ShapeOf(e)
			s.Fields[k] = f
			s.Elem = merge(s.Elem, f)
		}
		if s.Elem == nil {
			s.Elem = anyShape
		}
		return s
	}
	return anyShape
}

// merge is the shape that covers both a and b: objects keep every field
// of either; differing kinds (null aside) are Any.
func merge(a, b *Shape) *Shape {
	switch {
	case a == nil:
		return b
	case b == nil:
		return a
	case a.Kind == Null:
		return b
	case b.Kind == Null:
		return a
	case a.Kind != b.Kind:
		return anyShape
	}
	switch a.Kind {
	case List:
		return &Shape{Kind: List, Elem: merge(a.Elem, b.Elem)}
	case Object:
		s := &Shape{Kind: Object, Fields: map[string]*Shape{}, Elem: merge(a.Elem, b.Elem)}
		for k, f := range a.Fields {
			s.Fields[k] = f
		}
		for k, f := range b.Fields {
			s.Fields[k] = merge(s.Fields[k], f)
		}
		return s
	}
	return a
}

// SchemaShape is the shape of a tool's arguments as its JSON schema
// declares them: an object whose fields are the schema's properties.
func SchemaShape(schema json.RawMessage) (*Shape, error) {
	if len(schema) == 0 {
		return &Shape{Kind: Object, Fields: map[string]*Shape{}, Elem: anyShape}, nil
	}
	var s map[string]any
	if err := json.Unmarshal(schema, &s); err != nil {
		return nil, fmt.Errorf("parameters: %w", err)
	}
	sh := schemaShape(s)
	if sh.Kind != Object {
		return nil, fmt.Errorf("parameters: the schema must describe an object")
	}
	return sh, nil
}

func schemaShape(s map[string]any) *Shape {
	t, _ := s["type"].(string)
	switch t {
	case "string":
		return &Shape{Kind: String}
	case "number", "integer":
		return &Shape{Kind: Number}
	case "boolean":
		return &Shape{Kind: Bool}
	case "array":
		items, _ := s["items"].(map[string]any)
		if items == nil {
			return &Shape{Kind: List, Elem: anyShape}
		}
		return &Shape{Kind: List, Elem: schemaShape(items)}
	case "object":
		props, _ := s["properties"].(map[string]any)
		sh := &Shape{Kind: Object, Fields: map[string]*Shape{}, Elem: anyShape}
		for k, p := range props {
			pm, _ := p.(map[string]any)
			sh.Fields[k] = schemaShape(pm)
		}
		if props == nil {
			sh.Fields = nil // any object: its fields are not known
		}
		return sh
	}
	return anyShape
}

// callShape is the shape of one entry of calls in a check.
var callShape = &Shape{Kind: Object, Elem: anyShape, Fields: map[string]*Shape{
	"seq": {Kind: Number}, "role": {Kind: String}, "tool": {Kind: String},
	"args": {Kind: Object, Elem: anyShape}, "result": {Kind: String}, "outbound": {Kind: Bool},
}}

// field returns the shape of a field, or an error naming what the object
// holds.
func (s *Shape) field(name string) (*Shape, error) {
	switch {
	case s == nil || s.Kind == Any || s.Kind == Null:
		return anyShape, nil
	case s.Kind == Object && s.Fields == nil:
		return anyShape, nil
	case s.Kind != Object:
		return nil, fmt.Errorf("cannot select %q: the value is %s, which has no fields", name, s.Kind)
	}
	if f, ok := s.Fields[name]; ok {
		return f, nil
	}
	return nil, fmt.Errorf("no field %q here%s; it holds %s", name, didYouMean(name, s.names()), s.listNames())
}

func (s *Shape) names() []string {
	out := make([]string, 0, len(s.Fields))
	for k := range s.Fields {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func (s *Shape) listNames() string {
	n := s.names()
	if len(n) == 0 {
		return "no fields"
	}
	if len(n) > 12 {
		n = append(n[:12:12], "…")
	}
	return strings.Join(n, ", ")
}

// didYouMean suggests the closest name, if one is close.
func didYouMean(name string, names []string) string {
	if best := hcldiag.Closest(name, names); best != "" {
		return fmt.Sprintf(" (did you mean %q?)", best)
	}
	return ""
}

// String renders a shape briefly, for messages and tests.
func (s *Shape) String() string {
	switch {
	case s == nil:
		return "any"
	case s.Kind == List:
		return "list(" + s.Elem.String() + ")"
	case s.Kind == Object && s.Fields != nil:
		parts := make([]string, 0, len(s.Fields))
		for _, k := range s.names() {
			parts = append(parts, k+": "+s.Fields[k].String())
		}
		return "{" + strings.Join(parts, ", ") + "}"
	case s.Kind == Object:
		return "object"
	}
	return strings.TrimPrefix(strings.TrimPrefix(s.Kind.String(), "a "), "an ")
}

// hasField reports whether an object shape declares a field.
func (s *Shape) hasField(name string) bool {
	return s != nil && s.Kind == Object && s.Fields != nil && slices.Contains(s.names(), name)
}
