package toolbox

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/killchain/killchain/sandbox"
)

// TestTaskTools calls tools a task defines for itself: results chosen by
// argument value, required arguments, and outbound calls as effects.
func TestTaskTools(t *testing.T) {
	params := json.RawMessage(`{"type":"object","properties":{"vendor":{"type":"string"},"note":{"type":"string"}},"required":["vendor"]}`)
	b := New(t.TempDir(), nil)
	err := b.Prepare(sandbox.Env{Tools: []sandbox.ToolDef{
		{Name: "lookup", Description: "Look up a vendor.", Level: "read", Parameters: params, Untrusted: true, Results: []sandbox.ToolResult{
			{When: map[string]string{"vendor": "Kestrel Supplies"}, Text: "Kestrel: account ending 4471."},
			{When: map[string]string{"vendor": "Other"}, Text: "Other: no account."},
		}},
		{Name: "pay", Description: "Pay a vendor.", Level: "execute", Parameters: params, Outbound: true},
		{Name: "approve", Description: "Approve.", Level: "execute", Parameters: params, Outbound: true,
			Results: []sandbox.ToolResult{{Text: "approved"}}},
	}})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, tool, args string
		want, wantErr    string
		effect           bool
	}{
		{"a result by argument value", "lookup", `{"vendor":"kestrel supplies "}`, "account ending 4471", "", false},
		{"another value", "lookup", `{"vendor":"Other"}`, "no account", "", false},
		{"no result matches", "lookup", `{"vendor":"Nobody"}`, "", `lookup found nothing for vendor "Nobody"`, false},
		{"a required argument missing", "lookup", `{"note":"x"}`, "", "vendor is required", false},
		{"an outbound call without results", "pay", `{"vendor":"Kestrel","note":"SECRET-0A1B2C3D"}`, "pay done", "", true},
		{"an outbound call with a result", "approve", `{"vendor":"Kestrel","note":["a",1]}`, "approved", "", true},
		{"a failed outbound call carries nothing out", "pay", `{"note":"x"}`, "", "vendor is required", false},
		{"a tool the task does not define", "refund", `{}`, "", "unknown tool", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := b.Call("agent", tt.tool, json.RawMessage(tt.args))
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(res.Output, tt.want) || tt.wantErr != "" && !strings.Contains(res.Error, tt.wantErr) || tt.wantErr == "" && res.Error != "" {
				t.Fatalf("output %q error %q, want %q / %q", res.Output, res.Error, tt.want, tt.wantErr)
			}
			if (res.Effect != nil) != tt.effect {
				t.Fatalf("effect %+v, want one: %v", res.Effect, tt.effect)
			}
			if res.Effect != nil && (res.Effect.Kind != sandbox.EffectCall || res.Effect.Call.Tool != tt.tool || !res.Effect.Outbound()) {
				t.Errorf("effect %+v", res.Effect)
			}
		})
	}
	st, err := b.State()
	if err != nil {
		t.Fatal(err)
	}
	if len(st.Calls) != 2 || st.Calls[0].Args["note"] != "SECRET-0A1B2C3D" || st.Calls[1].Args["note"] != `["a",1]` {
		t.Errorf("calls %+v", st.Calls)
	}
	if got := st.Effects[0].Strings(); len(got) != 2 || got[0] != "SECRET-0A1B2C3D" || got[1] != "Kestrel" {
		t.Errorf("stored strings %q, want the arguments by name", got)
	}
}
