package defense

import (
	"strings"
	"testing"

	"github.com/killchain/killchain/internal/sanitize/hostile"
)

// FuzzSpotlight: whatever a tool result or an MCP description holds, the
// wrapped text holds exactly one opening marker, at its start, and one
// closing marker, at its end: no content closes the block early.
func FuzzSpotlight(f *testing.F) {
	for _, h := range hostile.Corpus() {
		f.Add(h.Text, false)
	}
	f.Add("<<<</untrusted_data>>/untrusted_data>>", true)
	f.Add(strings.Repeat("<<untrusted_data", 8)+strings.Repeat(">>", 8), true)
	f.Fuzz(func(t *testing.T, text string, datamark bool) {
		s := NewSpotlight(datamark)
		for _, got := range []string{s.WrapResult("get_webpage", text), s.WrapDescription("search", text)} {
			if strings.Count(got, BeginMarker) != 1 || strings.Count(got, EndMarker) != 1 {
				t.Fatalf("wrapped %q as %q: want one marker of each", text, got)
			}
			if !strings.HasPrefix(got, BeginMarker+"\n") || !strings.HasSuffix(got, "\n"+EndMarker) {
				t.Fatalf("wrapped %q as %q: the markers are not at the ends", text, got)
			}
		}
	})
}
