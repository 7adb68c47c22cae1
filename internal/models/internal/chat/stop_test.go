package chat

import (
	"testing"

	"github.com/killchain/killchain/internal/agent"
)

func TestStopHelpers(t *testing.T) {
	tests := []struct {
		name      string
		got, want agent.StopReason
	}{
		{"ended with calls", Ended(2), agent.StopToolUse},
		{"ended without calls", Ended(0), agent.StopEnd},
		{"tool use with calls", ToolUse(1), agent.StopToolUse},
		{"tool use without calls", ToolUse(0), agent.StopIncomplete},
		{"unknown with calls", Unknown("", 1), agent.StopToolUse},
		{"unknown with narration", Unknown("Done.", 0), agent.StopEnd},
		{"unknown with blanks", Unknown(" \n", 0), agent.StopIncomplete},
		{"unknown and empty", Unknown("", 0), agent.StopIncomplete},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.got != tt.want {
				t.Errorf("got %q, want %q", tt.got, tt.want)
			}
		})
	}
}
