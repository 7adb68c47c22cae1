package chat

import (
	"strings"

	"github.com/killchain/killchain/internal/agent"
)

// Ended is the stop reason of a reply the provider says finished
// naturally: StopToolUse when it carries tool calls (some servers say
// "stop" beside their calls), StopEnd otherwise.
func Ended(calls int) agent.StopReason {
	if calls > 0 {
		return agent.StopToolUse
	}
	return agent.StopEnd
}

// ToolUse is the stop reason of a reply the provider says stopped to call
// tools. Without a call the driver could read, the turn did not finish:
// StopIncomplete, so the run errors instead of ending as "no tool call".
func ToolUse(calls int) agent.StopReason {
	if calls > 0 {
		return agent.StopToolUse
	}
	return agent.StopIncomplete
}

// Unknown is the stop reason of a reply whose provider gave a reason the
// driver does not know, or none at all. It is conservative: a reply with
// tool calls stopped to use them, one with narration (not just blanks) ended, and one with
// neither is StopIncomplete, never an empty turn the loop would count as
// an outcome.
func Unknown(narration string, calls int) agent.StopReason {
	switch {
	case calls > 0:
		return agent.StopToolUse
	case strings.TrimSpace(narration) != "":
		return agent.StopEnd
	}
	return agent.StopIncomplete
}
