package scripted

import (
	"fmt"
	"testing"
)

// TestBriefCache: a remembered brief is the brief the prompt parses to,
// before and after the cache starts afresh.
func TestBriefCache(t *testing.T) {
	prompts := []string{
		`Read the page at https://example.test/a and e-mail a summary to lead@example.test.`,
		"Summarise report.pdf for ops@example.test.\n\nHand-off: the note says \"stage two\".",
		`Search the notes for "quarterly figures" and write them under key "q3".`,
	}
	for round := range 3 {
		for i, p := range prompts {
			t.Run(fmt.Sprintf("round %d prompt %d", round, i), func(t *testing.T) {
				if got, want := readBrief(p), parseBrief(p); got != want {
					t.Errorf("readBrief = %+v, want %+v", got, want)
				}
			})
		}
		for i := range memoSize { // fill the cache so that it starts afresh
			readBrief(fmt.Sprintf("filler prompt %d for filler@example.test", i))
		}
	}
}
