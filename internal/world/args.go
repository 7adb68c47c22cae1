package world

import (
	"fmt"
	"math"
	"slices"
	"sort"
)

// checkArgs checks a call's arguments against its tool's JSON schema: each
// required parameter given (null counts as not given), each declared one
// of its type, and of its enum when it has one. Arguments the schema does
// not declare are left alone: no expression can read them.
func checkArgs(schema map[string]any, args map[string]any) error {
	if schema == nil {
		return nil
	}
	props, _ := schema["properties"].(map[string]any)
	req, _ := schema["required"].([]any)
	for _, r := range req {
		name, _ := r.(string)
		if v, ok := args[name]; !ok || v == nil {
			return fmt.Errorf("%s is required", name)
		}
	}
	names := make([]string, 0, len(props))
	for k := range props {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, name := range names {
		v, ok := args[name]
		if !ok || v == nil {
			continue
		}
		p, _ := props[name].(map[string]any)
		if err := checkValue(p, v); err != nil {
			return fmt.Errorf("%s %w", name, err)
		}
	}
	return nil
}

// checkValue checks one value against a property's schema.
func checkValue(p map[string]any, v any) error {
	want, _ := p["type"].(string)
	ok := true
	switch want {
	case "string":
		_, ok = v.(string)
	case "number":
		_, ok = v.(float64)
	case "integer":
		f, isNum := v.(float64)
		ok = isNum && f == math.Trunc(f)
	case "boolean":
		_, ok = v.(bool)
	case "array":
		var list []any
		list, ok = v.([]any)
		if items, _ := p["items"].(map[string]any); ok && items != nil {
			for i, e := range list {
				if err := checkValue(items, e); err != nil {
					return fmt.Errorf("[%d] %w", i, err)
				}
			}
		}
	case "object":
		_, ok = v.(map[string]any)
	}
	if !ok {
		return fmt.Errorf("must be %s, not %s", typeWord(want), describe(v))
	}
	if enum, _ := p["enum"].([]any); len(enum) > 0 && !slices.ContainsFunc(enum, func(e any) bool { return same(e, v) }) {
		return fmt.Errorf("must be one of %v", enum)
	}
	return nil
}

func typeWord(t string) string {
	switch t {
	case "integer":
		return "a whole number"
	case "array":
		return "a list"
	case "object":
		return "an object"
	case "boolean":
		return "true or false"
	}
	return "a " + t
}

func describe(v any) string {
	switch v.(type) {
	case string:
		return "a string"
	case float64:
		return "a number"
	case bool:
		return "true or false"
	case []any:
		return "a list"
	case map[string]any:
		return "an object"
	}
	return "null"
}
