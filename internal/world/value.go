package world

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"sort"
	"strconv"
	"strings"

	"cel.dev/cel-go/common/types"
	"cel.dev/cel-go/common/types/ref"
	"cel.dev/cel-go/common/types/traits"
)

// Values in a state are JSON values as Go holds them: nil, bool, float64,
// string, []any and map[string]any. Every number is a float64 (a CEL
// double): JSON does not tell 2 from 2.0, and neither does a state.

// Decode reads a JSON document into a state value: numbers as float64.
func Decode(raw []byte) (any, error) {
	if len(bytes.TrimSpace(raw)) == 0 {
		return map[string]any{}, nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if dec.More() {
		return nil, fmt.Errorf("more than one JSON value")
	}
	return fromJSON(v)
}

// fromJSON turns json.Number into float64, everywhere in v.
func fromJSON(v any) (any, error) {
	switch x := v.(type) {
	case json.Number:
		f, err := x.Float64()
		if err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
			return nil, fmt.Errorf("the number %s is out of range", x)
		}
		return f, nil
	case []any:
		for i, e := range x {
			c, err := fromJSON(e)
			if err != nil {
				return nil, err
			}
			x[i] = c
		}
		return x, nil
	case map[string]any:
		for k, e := range x {
			c, err := fromJSON(e)
			if err != nil {
				return nil, err
			}
			x[k] = c
		}
		return x, nil
	}
	return v, nil
}

// Encode writes a state value as compact JSON, object keys sorted.
func Encode(v any) (json.RawMessage, error) {
	data, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	return data, nil
}

// native turns a CEL value into a state value. Lists and maps that CEL
// wraps around Go values are taken as they are (a state value is never
// changed in place, so sharing is safe); everything else is converted.
func native(v ref.Val) (any, error) {
	switch x := v.(type) {
	case types.String:
		return string(x), nil
	case types.Double:
		if math.IsInf(float64(x), 0) || math.IsNaN(float64(x)) {
			return nil, fmt.Errorf("the number %v cannot be kept in a state", float64(x))
		}
		return float64(x), nil
	case types.Int:
		return float64(x), nil
	case types.Uint:
		return float64(x), nil
	case types.Bool:
		return bool(x), nil
	case types.Null:
		return nil, nil
	case *types.Err:
		return nil, x
	}
	switch raw := v.Value().(type) {
	case map[string]any:
		return raw, nil
	case []any:
		return raw, nil
	}
	switch x := v.(type) {
	case traits.Mapper:
		out := map[string]any{}
		it := x.Iterator()
		for it.HasNext() == types.True {
			k := it.Next()
			ks, ok := k.(types.String)
			if !ok {
				return nil, fmt.Errorf("a map key in a state must be a string, not %s", k.Type().TypeName())
			}
			ev, err := native(x.Get(k))
			if err != nil {
				return nil, err
			}
			out[string(ks)] = ev
		}
		return out, nil
	case traits.Lister:
		n, ok := x.Size().(types.Int)
		if !ok {
			return nil, fmt.Errorf("a list of unknown size")
		}
		out := make([]any, int(n))
		for i := range out {
			ev, err := native(x.Get(types.Int(i)))
			if err != nil {
				return nil, err
			}
			out[i] = ev
		}
		return out, nil
	}
	return nil, fmt.Errorf("a value of type %s cannot be kept in a state", v.Type().TypeName())
}

// same reports whether two state values are equal, taking shared maps and
// lists as equal without walking them.
func same(a, b any) bool {
	switch x := a.(type) {
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok || len(x) != len(y) {
			return false
		}
		if reflect.ValueOf(x).UnsafePointer() == reflect.ValueOf(y).UnsafePointer() {
			return true
		}
		for k, v := range x {
			w, ok := y[k]
			if !ok || !same(v, w) {
				return false
			}
		}
		return true
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			return false
		}
		if len(x) == 0 || &x[0] == &y[0] {
			return true
		}
		for i := range x {
			if !same(x[i], y[i]) {
				return false
			}
		}
		return true
	}
	return a == b
}

// Change is one place of the state a call changed: its path
// (transactions[3].subject) and the value it holds now, as JSON; Removed
// marks a key or list element that is gone.
type Change struct {
	Path    string          `json:"path"`
	Value   json.RawMessage `json:"value,omitempty"`
	Removed bool            `json:"removed,omitempty"`
	// Key is the object key the change added, when it added one: a key is
	// written as much as its value (a canary may stand in either), and a
	// key that was there before is not.
	Key string `json:"key,omitempty"`
}

// diff lists the places where b differs from a, below path: a value
// that replaced one of another kind is one change; maps and lists are
// walked, so appending to a list of a thousand records is one change.
func diff(path string, a, b any, out []Change) []Change {
	if same(a, b) {
		return out
	}
	switch x := a.(type) {
	case map[string]any:
		if y, ok := b.(map[string]any); ok {
			for _, k := range sortedKeys(y) {
				if old, had := x[k]; had {
					out = diff(joinKey(path, k), old, y[k], out)
				} else {
					out = appendChange(out, joinKey(path, k), y[k])
					out[len(out)-1].Key = k
				}
			}
			for _, k := range sortedKeys(x) {
				if _, kept := y[k]; !kept {
					out = append(out, Change{Path: joinKey(path, k), Removed: true})
				}
			}
			return out
		}
	case []any:
		if y, ok := b.([]any); ok {
			for i := range max(len(x), len(y)) {
				if i < len(x) && i < len(y) && same(x[i], y[i]) {
					continue
				}
				p := path + "[" + strconv.Itoa(i) + "]"
				switch {
				case i >= len(y):
					out = append(out, Change{Path: p, Removed: true})
				case i >= len(x):
					out = appendChange(out, p, y[i])
				default:
					out = diff(p, x[i], y[i], out)
				}
			}
			return out
		}
	}
	return appendChange(out, path, b)
}

func appendChange(out []Change, path string, v any) []Change {
	raw, err := Encode(v)
	if err != nil {
		raw = json.RawMessage(strconv.Quote(fmt.Sprint(v)))
	}
	return append(out, Change{Path: path, Value: raw})
}

// joinKey appends a map key to a path: as a field when it is a plain
// name, else in brackets.
func joinKey(path, k string) string {
	if plainName(k) {
		if path == "" {
			return k
		}
		return path + "." + k
	}
	return path + "[" + strconv.Quote(k) + "]"
}

func plainName(k string) bool {
	if k == "" {
		return false
	}
	for i, r := range k {
		ok := r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || i > 0 && r >= '0' && r <= '9'
		if !ok {
			return false
		}
	}
	return true
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// setPath returns root with the value at a dotted path replaced; the maps
// along the path are copied, root itself is not changed. Every key of the
// path but the last must name a map.
func setPath(root map[string]any, path []string, v any) (map[string]any, error) {
	out := make(map[string]any, len(root)+1)
	for k, e := range root {
		out[k] = e
	}
	if len(path) == 1 {
		out[path[0]] = v
		return out, nil
	}
	child, ok := root[path[0]].(map[string]any)
	if !ok {
		return nil, fmt.Errorf("%s is not an object", path[0])
	}
	c, err := setPath(child, path[1:], v)
	if err != nil {
		return nil, fmt.Errorf("%s.%w", path[0], err)
	}
	out[path[0]] = c
	return out, nil
}

// Strings returns every string the change wrote: the key it added, and
// every string its new value holds, object keys included. Canary search
// in a change runs over these.
func (c Change) Strings() []string {
	if c.Removed || len(c.Value) == 0 {
		return nil
	}
	var out []string
	if c.Key != "" {
		out = append(out, c.Key)
	}
	v, err := Decode(c.Value)
	if err != nil {
		return append(out, string(c.Value))
	}
	var walk func(any)
	walk = func(v any) {
		switch x := v.(type) {
		case string:
			out = append(out, x)
		case []any:
			for _, e := range x {
				walk(e)
			}
		case map[string]any:
			for _, k := range sortedKeys(x) {
				out = append(out, k)
				walk(x[k])
			}
		}
	}
	walk(v)
	return out
}

// Text renders a state value the way a result shows a non-string value:
// compact JSON; a string as itself.
func Text(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	raw, err := Encode(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return strings.TrimSpace(string(raw))
}

// adapter is the CEL type adapter of every program. It hands CEL a
// state's lists as stateLists, so that appending a record to a list of ten
// thousand shares the ten thousand instead of wrapping and unwrapping
// each; everything else is CEL's default.
var adapter types.Adapter = stateAdapter{types.DefaultTypeAdapter}

type stateAdapter struct{ types.Adapter }

func (a stateAdapter) NativeToValue(v any) ref.Val {
	switch x := v.(type) {
	case []any:
		return &stateList{Lister: types.NewList(adapter, x), items: x}
	case map[string]any:
		return types.NewStringInterfaceMap(adapter, x)
	}
	return a.Adapter.NativeToValue(v)
}

// stateList is a list of a state: CEL's own list, whose concatenation
// makes a new Go slice of the same elements.
type stateList struct {
	traits.Lister
	items []any
}

// Add implements traits.Adder: l + other, as a new stateList.
func (l *stateList) Add(other ref.Val) ref.Val {
	o, ok := other.(traits.Lister)
	if !ok {
		return types.MaybeNoSuchOverloadErr(other)
	}
	tail, err := native(o)
	if err != nil {
		return types.WrapErr(err)
	}
	rest, _ := tail.([]any)
	out := make([]any, 0, len(l.items)+len(rest))
	return adapter.NativeToValue(append(append(out, l.items...), rest...))
}

// Value implements ref.Val: the Go slice itself.
func (l *stateList) Value() any { return l.items }
