package agent

import "testing"

// TestToolMessage: the tool message an agent was shown for each kind of
// entry, as the loop wrote it.
func TestToolMessage(t *testing.T) {
	tests := []struct {
		name  string
		e     Entry
		text  string
		isErr bool
		ok    bool
	}{
		{"result", Entry{Kind: KindToolResult, Text: "page text"}, "page text", false, true},
		{"failed result", Entry{Kind: KindToolResult, Text: "error: no such page", IsError: true}, "error: no such page", true, true},
		{"loop error", Entry{Kind: KindToolResult, Text: `unknown tool "x"`, IsError: true}, `error: unknown tool "x"`, true, true},
		{"refused", Entry{Kind: KindRefused, Text: "permission denied", IsError: true}, "error: permission denied", true, true},
		{"write key removed", Entry{Kind: KindDefense, Defense: "write_filter", Text: "blocked by write_filter: the record's key was removed", IsError: true},
			"error: blocked by write_filter: the record's key was removed", true, true},
		{"call blocked", Entry{Kind: KindDefense, Defense: "pi_detector", Text: "blocked: INJECTION"}, "error: blocked by pi_detector: INJECTION", true, true},
		{"filter note", Entry{Kind: KindDefense, Defense: "write_filter", Text: "removed:\nline"}, "", false, false},
		{"call", Entry{Kind: KindToolCall, Tool: "send_report"}, "", false, false},
		{"narration", Entry{Kind: KindNarration, Text: "hi"}, "", false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			text, isErr, ok := ToolMessage(tt.e)
			if text != tt.text || isErr != tt.isErr || ok != tt.ok {
				t.Errorf("ToolMessage = %q, %v, %v; want %q, %v, %v", text, isErr, ok, tt.text, tt.isErr, tt.ok)
			}
		})
	}
}
