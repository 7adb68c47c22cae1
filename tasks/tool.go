package tasks

import (
	"bytes"
	"encoding/json"

	"github.com/killchain/killchain/internal/tools"
	"github.com/killchain/killchain/sandbox"
)

// Specs returns the specs of an environment's task tools as a model is
// offered them: descriptions with the run's payload in place.
func Specs(defs []sandbox.ToolDef) []tools.Spec {
	out := make([]tools.Spec, 0, len(defs))
	for _, d := range defs {
		lv, err := tools.ParseLevel(d.Level)
		if err != nil {
			lv = tools.Admin // an unreadable level grants nothing below admin
		}
		out = append(out, tools.Spec{Name: d.Name, Description: d.Description, Level: lv, Parameters: d.Parameters,
			Outbound: d.Outbound, Untrusted: d.Untrusted})
	}
	return out
}

// propertyNames lists a JSON schema's property names in the order they are
// written.
func propertyNames(schema json.RawMessage) []string {
	var s struct {
		Properties json.RawMessage `json:"properties"`
	}
	if json.Unmarshal(schema, &s) != nil || len(s.Properties) == 0 {
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(s.Properties))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil
	}
	var names []string
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return names
		}
		key, _ := tok.(string)
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			return names
		}
		names = append(names, key)
	}
	return names
}
