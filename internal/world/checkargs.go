package world

import (
	"encoding/json"
	"fmt"
)

// CheckArgs checks a call's arguments against a tool's parameter schema
// as a sandbox checks them before a call: the task loader checks a ground
// truth's calls with it at validate time.
func CheckArgs(schema json.RawMessage, args map[string]any) error {
	if len(schema) == 0 {
		return nil
	}
	var s map[string]any
	if err := json.Unmarshal(schema, &s); err != nil {
		return fmt.Errorf("parameters: %w", err)
	}
	return checkArgs(s, args)
}
