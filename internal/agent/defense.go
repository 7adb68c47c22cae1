package agent

import (
	"context"
	"encoding/json"
)

// Defense is one defense placed on a channel. A defense implements one or
// more of the hook interfaces below; Channel names what it inspects.
type Defense interface {
	Name() string
	Channel() string
}

// SystemAdder adds instructions to an agent's system prompt.
type SystemAdder interface {
	AddSystem(system string) string
}

// WriteFilter rewrites an agent's memory write before it is committed.
type WriteFilter interface {
	FilterWrite(value string) (kept string, removed []string)
}

// Verdict is a call checker's decision.
type Verdict struct {
	Block  bool
	Reason string
	Usage  Usage // tokens the check spent, if it asked a model
	// Failed means the checker got no usable verdict (an empty answer, one
	// given only in thinking, an unreadable one). A failed check blocks the
	// call: checkers fail closed, and the loop records a classifier_error.
	Failed bool
}

// CallChecker inspects an outgoing tool call before it runs.
type CallChecker interface {
	CheckCall(ctx context.Context, tool string, args json.RawMessage) (Verdict, error)
}

// ResultWrapper rewrites a tool result before the agent sees it.
type ResultWrapper interface {
	WrapResult(tool, text string) string
}
