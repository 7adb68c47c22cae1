// Package kinds is the vocabulary of defenses: the kinds a study may name
// and the channels each inspects. It holds no defense; the study decoder,
// the defenses and the report share these names through it.
package kinds

import "slices"

// Defense kinds a study may name.
const (
	None         = "none"
	WriteFilter  = "write_filter"
	PIDetector   = "pi_detector"
	Spotlighting = "spotlighting"
	ToolPinning  = "tool_pinning"
	All          = "all"
)

// Channels the defenses inspect.
const (
	// MemoryWrite is an agent-initiated write_memory record (key and value),
	// before it is committed. Seeded memory never passes through it.
	MemoryWrite = "memory_write"
	// ToolCall is every tool call an agent makes (name and arguments),
	// before it runs. Incoming results are not part of it.
	ToolCall = "outgoing_tool_call"
	// ToolResult is the result of an untrusted tool, before the agent reads it.
	ToolResult = "tool_result"
	// ToolListing is an MCP server's tool listing (descriptions and input
	// schemas), before the agent is handed it: at the first listing and
	// at each one a list_changed notification brings.
	ToolListing = "tool_listing"
)

// Names returns every defense kind, in the order studies list them.
func Names() []string { return []string{None, WriteFilter, PIDetector, Spotlighting, ToolPinning, All} }

// Channels returns the channels a kind inspects, sorted; nil for "none" or
// an unknown kind.
func Channels(kind string) []string {
	switch kind {
	case WriteFilter:
		return []string{MemoryWrite}
	case PIDetector:
		// Outgoing calls, and the tools an untrusted MCP server lists.
		return []string{ToolCall, ToolListing}
	case Spotlighting:
		// Untrusted results, and the descriptions of an untrusted MCP
		// server's tools in its listings.
		return []string{ToolListing, ToolResult}
	case ToolPinning:
		return []string{ToolListing}
	case All:
		out := []string{MemoryWrite, ToolCall, ToolListing, ToolResult}
		slices.Sort(out)
		return out
	}
	return nil
}
