// Package defense holds the defenses a study places on an agent's channels.
// Each one names the channel it inspects, because the study's defense
// findings are about channel mismatch: a filter on memory writes cannot see
// a payload that arrives in a tool result, and a checker of outgoing calls
// cannot see what came in.
package defense

import (
	"fmt"
	"slices"

	"github.com/killchain/killchain/agent"
)

// Defense kinds a study may name.
const (
	KindNone         = "none"
	KindWriteFilter  = "write_filter"
	KindPIDetector   = "pi_detector"
	KindSpotlighting = "spotlighting"
	KindAll          = "all"
)

// Channels the defenses inspect.
const (
	// ChannelMemoryWrite is the value of an agent-initiated write_memory call,
	// before it is committed. Seeded memory never passes through it.
	ChannelMemoryWrite = "memory_write"
	// ChannelToolCall is every tool call an agent makes (name and
	// arguments), before it runs. Incoming results are not part of it.
	ChannelToolCall = "outgoing_tool_call"
	// ChannelToolResult is the result of an untrusted tool, before the agent
	// reads it.
	ChannelToolResult = "tool_result"
)

// Options configure the defenses.
type Options struct {
	// Patterns replace write_filter's default patterns (Go regexps, matched
	// against each line of a write).
	Patterns []string
	// Datamark makes spotlighting replace spaces in wrapped text with a marker.
	Datamark bool
	// Classifier is the model pi_detector asks; pi_detector and all need
	// one (the runner gives the study's, or the built-in keyword classifier).
	Classifier agent.Model
}

// Kinds returns every defense kind, in the order studies list them.
func Kinds() []string {
	return []string{KindNone, KindWriteFilter, KindPIDetector, KindSpotlighting, KindAll}
}

// Build returns the defenses of a kind; "none" returns none.
func Build(kind string, opt Options) ([]agent.Defense, error) {
	switch kind {
	case KindNone:
		return nil, nil
	case KindWriteFilter:
		f, err := NewWriteFilter(opt.Patterns)
		if err != nil {
			return nil, err
		}
		return []agent.Defense{f}, nil
	case KindPIDetector:
		d, err := newDetector(opt)
		if err != nil {
			return nil, err
		}
		return []agent.Defense{d}, nil
	case KindSpotlighting:
		return []agent.Defense{NewSpotlight(opt.Datamark)}, nil
	case KindAll:
		f, err := NewWriteFilter(opt.Patterns)
		if err != nil {
			return nil, err
		}
		d, err := newDetector(opt)
		if err != nil {
			return nil, err
		}
		return []agent.Defense{f, d, NewSpotlight(opt.Datamark)}, nil
	}
	return nil, fmt.Errorf("defense: unknown kind %q (want one of %v)", kind, Kinds())
}

func newDetector(opt Options) (*Detector, error) {
	if opt.Classifier == nil {
		return nil, fmt.Errorf("defense: %s needs a classifier model", KindPIDetector)
	}
	return NewDetector(opt.Classifier), nil
}

// NeedsClassifier reports whether a kind asks a classifier model.
func NeedsClassifier(kind string) bool { return kind == KindPIDetector || kind == KindAll }

// Channels returns the channels a kind inspects; nil for "none" or an
// unknown kind.
func Channels(kind string) []string {
	switch kind {
	case KindWriteFilter:
		return []string{ChannelMemoryWrite}
	case KindPIDetector:
		return []string{ChannelToolCall}
	case KindSpotlighting:
		return []string{ChannelToolResult}
	case KindAll:
		out := []string{ChannelMemoryWrite, ChannelToolCall, ChannelToolResult}
		slices.Sort(out)
		return out
	}
	return nil
}
