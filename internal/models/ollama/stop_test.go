package ollama

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/killchain/killchain/internal/agent"
	"github.com/killchain/killchain/internal/models/internal/fake"
	"github.com/killchain/killchain/internal/models/limits"
)

// final patches the stream's last chunk (the done chunk).
func final(body, path string, value any) string {
	lines := strings.Split(strings.TrimRight(body, "\n"), "\n")
	lines[len(lines)-1] = fake.Patch(lines[len(lines)-1], path, value)
	return strings.Join(lines, "\n") + "\n"
}

// TestStopReasons reads done_reason from every way a streamed chat reply
// can end.
func TestStopReasons(t *testing.T) {
	calls := fake.Fixture("ollama_turn1.ndjson")
	text := fake.Fixture("ollama_turn2.ndjson")
	bare := `{"model":"qwen3:8b","created_at":"2026-11-29T22:00:00Z","message":{"role":"assistant","content":""},"done_reason":"stop","done":true}` + "\n"
	tests := []fake.StopCase{
		{Name: "stop with calls", Want: agent.StopToolUse, Detail: "stop"},
		{Name: "stop", NoTools: true, Want: agent.StopEnd, Detail: "stop"},
		{Name: "length", Stop: fake.StopLength, Want: agent.StopLength, Detail: "length"},
		{Name: "load", Stop: fake.StopPause, Want: agent.StopIncomplete, Detail: "load"},
		// Ollama has no refusal signal: a refusal is the model's own words.
		{Name: "refusal is text", Stop: fake.StopRefusal, Want: agent.StopEnd, Detail: "stop"},
		{Name: "unload", Body: final(bare, "done_reason", "unload"), Stream: true, Want: agent.StopIncomplete, Detail: "unload"},
		{Name: "unknown with text", Body: final(text, "done_reason", "eos"), Stream: true, Want: agent.StopEnd, Detail: "eos"},
		{Name: "unknown with calls", Body: final(calls, "done_reason", "eos"), Stream: true, Want: agent.StopToolUse, Detail: "eos"},
		{Name: "unknown and empty", Body: final(bare, "done_reason", "eos"), Stream: true, Want: agent.StopIncomplete, Detail: "eos"},
		{Name: "missing with text", Body: final(text, "done_reason", nil), Stream: true, Want: agent.StopEnd},
		{Name: "missing and empty", Body: final(bare, "done_reason", nil), Stream: true, Want: agent.StopIncomplete},
	}
	for _, tt := range tests {
		t.Run(tt.Name, func(t *testing.T) {
			r := tt.Check(t, fake.Ollama, func(url string) (agent.Model, error) {
				return New(Options{Model: "qwen3:8b", Host: url, MaxTokens: 256, Thinking: true, Caller: &limits.Caller{Policy: limits.Policy{Timeout: 5 * time.Second}}})
			})
			switch tt.Stop {
			case fake.StopLength:
				if r.Thinking == "" || r.Narration != "" || len(r.ToolCalls) != 0 {
					t.Errorf("cut reply = %+v, want thinking only", r)
				}
			case fake.StopRefusal:
				if r.Narration != fake.Refusal {
					t.Errorf("narration = %q, want the refusal", r.Narration)
				}
			}
		})
	}
}

// TestMalformedDoneReasonIsAnError: a done chunk that does not parse is no
// reply; the driver retries and then fails with a provider error.
func TestMalformedDoneReasonIsAnError(t *testing.T) {
	body := final(fake.Fixture("ollama_turn2.ndjson"), "done_reason", map[string]any{"reason": "stop"})
	srv := fake.New(t, fake.Step{Body: body, Stream: true, ContentType: "application/x-ndjson"})
	m, err := New(Options{Model: "qwen3:8b", Host: srv.URL, Caller: &limits.Caller{Policy: limits.Policy{MaxRetries: 1, Sleep: func(context.Context, time.Duration) error { return nil }}}})
	if err != nil {
		t.Fatal(err)
	}
	r, err := m.Generate(context.Background(), fake.FirstRequest())
	if !errors.Is(err, limits.ErrProvider) {
		t.Fatalf("reply %+v, err %v; want a provider error", r, err)
	}
}
