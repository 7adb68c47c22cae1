// Package defense holds the defenses a study places on an agent's channels.
// Each one names the channel it inspects, because the study's defense
// findings are about channel mismatch: a filter on memory writes cannot see
// a payload that arrives in a tool result, and a checker of outgoing calls
// cannot see what came in.
package defense

import (
	"fmt"

	"github.com/killchain/killchain/internal/agent"
	"github.com/killchain/killchain/internal/defense/kinds"
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

// Build returns the defenses of a kind; "none" returns none.
func Build(kind string, opt Options) ([]agent.Defense, error) {
	switch kind {
	case kinds.None:
		return nil, nil
	case kinds.WriteFilter:
		f, err := NewWriteFilter(opt.Patterns)
		if err != nil {
			return nil, err
		}
		return []agent.Defense{f}, nil
	case kinds.PIDetector:
		d, err := newDetector(opt)
		if err != nil {
			return nil, err
		}
		return []agent.Defense{d}, nil
	case kinds.Spotlighting:
		return []agent.Defense{NewSpotlight(opt.Datamark)}, nil
	case kinds.ToolPinning:
		return []agent.Defense{ToolPinning{}}, nil
	case kinds.All:
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
	return nil, fmt.Errorf("defense: unknown kind %q (want one of %v)", kind, kinds.Names())
}

func newDetector(opt Options) (*Detector, error) {
	if opt.Classifier == nil {
		return nil, fmt.Errorf("defense: %s needs a classifier model", kinds.PIDetector)
	}
	return NewDetector(opt.Classifier), nil
}

// NeedsClassifier reports whether a kind asks a classifier model.
func NeedsClassifier(kind string) bool { return kind == kinds.PIDetector || kind == kinds.All }
