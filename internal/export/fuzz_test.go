package export

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/killchain/killchain/internal/agent"
	"github.com/killchain/killchain/internal/results"
)

// FuzzConversation: any transcript turns into messages that encode, hold
// each thinking entry as exactly one reasoning part and never as text, and
// keep every message's agent.
func FuzzConversation(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join(fixture, results.TranscriptsDir, "*.json"))
	for _, p := range files {
		data, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte(`{"agents":[{"position":"a","role":"r","model":"m"}],"entries":[{"position":"a","step":1,"kind":"thinking","text":"x"},{"position":"a","step":1,"kind":"tool_call","call_id":"c","args":"[1]"},{"position":"a","step":1,"kind":"defense","call_id":"c","text":"removed:\nx"},{"position":"a","step":1,"kind":"refused","call_id":"c","is_error":true,"text":"no"}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		var tr results.Transcript
		if json.Unmarshal(data, &tr) != nil {
			return
		}
		msgs, usage := conversation(tr.Entries, tr.Agents, func(s string) string { return "p/" + s })
		if _, err := encode(msgs); err != nil {
			t.Fatalf("messages do not encode: %v", err)
		}
		if _, err := encode(usage); err != nil {
			t.Fatalf("usage does not encode: %v", err)
		}
		thinking, reasoning := 0, 0
		for _, e := range tr.Entries {
			if e.Kind == agent.KindThinking {
				thinking++
			}
		}
		for _, m := range msgs {
			if m.Metadata["position"] == nil {
				t.Fatalf("%s message without its agent", m.Role)
			}
			parts, _ := m.Content.([]Content)
			for _, p := range parts {
				switch p.Type {
				case contentReasoning:
					reasoning++
					if p.Text != "" {
						t.Fatal("a reasoning part holds text")
					}
				case contentText:
					if p.Reasoning != "" {
						t.Fatal("a text part holds reasoning")
					}
				default:
					t.Fatalf("part of type %q", p.Type)
				}
			}
			if m.Role != "assistant" && parts != nil {
				t.Fatalf("a %s message with parts", m.Role)
			}
		}
		if reasoning != thinking {
			t.Fatalf("%d reasoning parts for %d thinking entries", reasoning, thinking)
		}
	})
}
