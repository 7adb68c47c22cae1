package vocab

import (
	"encoding/json"
	"slices"
	"testing"
)

// TestWords: the names runs.jsonl and events.jsonl carry are stable; users
// parse them.
func TestWords(t *testing.T) {
	if got, want := StageNames(), []string{"none", "exposed", "persisted", "relayed", "executed"}; !slices.Equal(got, want) {
		t.Errorf("StageNames() = %v, want %v", got, want)
	}
	for s := None; s <= Executed; s++ {
		if s.String() != StageNames()[s] {
			t.Errorf("Stage(%d).String() = %q", s, s.String())
		}
	}
	applies := map[Mode][]Stage{
		Single:          {None, Exposed, Executed},
		MemoryRelay:     {None, Exposed, Persisted, Relayed, Executed},
		DelegationRelay: {None, Exposed, Relayed, Executed},
	}
	for m, want := range applies {
		for s := None; s <= Executed; s++ {
			if got := m.Applies(s); got != slices.Contains(want, s) {
				t.Errorf("%s.Applies(%s) = %v", m, s, got)
			}
		}
	}
	if PosLabel(0) != "a" || PosLabel(1) != "b" {
		t.Errorf("PosLabel: %q, %q", PosLabel(0), PosLabel(1))
	}
	b, err := json.Marshal(Event{RunID: "r", Agent: "writer", Pos: "a", Step: 2, Channel: string(Outbound), Signal: Executed.String()})
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"run_id":"r","agent":"writer","position":"a","step":2,"channel":"outbound","signal":"executed"}`; string(b) != want {
		t.Errorf("event = %s, want %s", b, want)
	}
}
