// Package chat holds small conversions the live drivers share: tool schemas
// as maps, the tagged Provider blob each driver stores on assistant
// messages, and the pairing of tool results with their calls.
package chat

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/killchain/killchain/internal/agent"
)

// Schema decodes a tool's JSON-schema parameters into a map, the shape every
// SDK takes. An empty schema becomes an empty object schema.
func Schema(raw json.RawMessage) (map[string]any, error) {
	if len(raw) == 0 {
		return map[string]any{"type": "object", "properties": map[string]any{}}, nil
	}
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, fmt.Errorf("decode tool schema: %w", err)
	}
	return m, nil
}

// Blob is the Provider state a driver stores on an assistant message. Kind
// names the driver that wrote it, so a driver never replays another's state.
type Blob struct {
	Kind  string            `json:"kind"`
	Items []json.RawMessage `json:"items"`
}

// Encode marshals a blob; it returns nil when there is nothing to carry.
func Encode(kind string, items []json.RawMessage) json.RawMessage {
	if len(items) == 0 {
		return nil
	}
	b, err := json.Marshal(Blob{Kind: kind, Items: items})
	if err != nil {
		return nil
	}
	return b
}

// Decode returns the items of a blob written by kind, or nil.
func Decode(kind string, raw json.RawMessage) []json.RawMessage {
	if len(raw) == 0 {
		return nil
	}
	var b Blob
	if err := json.Unmarshal(raw, &b); err != nil || b.Kind != kind {
		return nil
	}
	return b.Items
}

// ObjectArgs returns the arguments as a JSON object for APIs that take
// objects rather than strings; arguments that are not an object become {}.
func ObjectArgs(args string) json.RawMessage {
	s := strings.TrimSpace(args)
	if strings.HasPrefix(s, "{") && json.Valid([]byte(s)) {
		return json.RawMessage(s)
	}
	return json.RawMessage("{}")
}

// Turn counts the assistant messages already in the history: the index the
// next reply will have. Drivers use it to build stable tool-call ids.
func Turn(msgs []agent.Message) int {
	n := 0
	for _, m := range msgs {
		if m.Role == agent.RoleAssistant {
			n++
		}
	}
	return n
}
