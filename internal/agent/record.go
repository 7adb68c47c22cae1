package agent

import (
	"bytes"
	"encoding/json"
	"maps"
	"slices"

	"github.com/killchain/killchain/sandbox"
)

// recordArgs reads a write_memory call's key and value the way the sandbox
// will store them: a string key as its text, any other key as its compact
// JSON; the value as whatever JSON value it is (a JSON string when absent).
func recordArgs(obj map[string]json.RawMessage) (string, json.RawMessage) {
	key := sandbox.ArgText(obj["key"])
	value, ok := obj["value"]
	if !ok || string(value) == "null" {
		value = sandbox.TextValue("")
	}
	return key, value
}

// FilterRecord runs a write filter over a whole memory record: the key and
// every string inside the value, whatever its JSON type (strings in arrays,
// object keys and object values included). An object member whose key the
// filter empties is dropped with its value. It returns the record as it will
// be committed and every line the filter removed.
func FilterRecord(f WriteFilter, key string, value json.RawMessage) (string, json.RawMessage, []string) {
	var removed []string
	filter := func(s string) string {
		kept, rm := f.FilterWrite(s)
		removed = append(removed, rm...)
		return kept
	}
	key = filter(key)
	dec := json.NewDecoder(bytes.NewReader(value))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		// Not JSON: the sandbox would refuse it; filter it as text.
		return key, json.RawMessage(sandbox.TextValue(filter(string(value)))), removed
	}
	before := len(removed)
	v = filterValue(v, filter)
	if len(removed) == before {
		return key, value, removed
	}
	out, err := json.Marshal(v)
	if err != nil {
		return key, sandbox.TextValue(""), removed
	}
	return key, out, removed
}

func filterValue(v any, filter func(string) string) any {
	switch x := v.(type) {
	case string:
		return filter(x)
	case []any:
		for i := range x {
			x[i] = filterValue(x[i], filter)
		}
		return x
	case map[string]any:
		out := make(map[string]any, len(x))
		for _, k := range slices.Sorted(maps.Keys(x)) {
			nk := filter(k)
			if nk == "" && k != "" {
				continue
			}
			out[nk] = filterValue(x[k], filter)
		}
		return out
	}
	return v
}
