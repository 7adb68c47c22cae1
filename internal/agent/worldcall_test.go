package agent_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/killchain/killchain/internal/agent"
	"github.com/killchain/killchain/internal/tools"
	"github.com/killchain/killchain/internal/tracker"
	"github.com/killchain/killchain/internal/vocab"
	"github.com/killchain/killchain/internal/world"
	"github.com/killchain/killchain/sandbox"
	"github.com/killchain/killchain/sandbox/toolbox"
)

// oneCall is a model that makes one call, then stops.
type oneCall struct{ tool, args string }

func (m oneCall) Generate(_ context.Context, req agent.Request) (agent.Reply, error) {
	if len(req.Messages) > 1 {
		return agent.Reply{Narration: "done"}, nil
	}
	return agent.Reply{ToolCalls: []agent.ToolCall{{ID: "c1", Name: m.tool, Arguments: m.args}}}, nil
}

// worldBox is a toolbox over a small ledger whose tools change the state.
func worldBox(t *testing.T) *toolbox.Box {
	t.Helper()
	params := json.RawMessage(`{"type":"object","properties":{"to":{"type":"string"},"amount":{"type":"number"},"memo":{"type":"string"}},"required":["to","amount"]}`)
	defs := []world.ToolDef{
		{Name: "transfer", Parameters: params, Outbound: true,
			Guards:  []world.Guard{{When: "args.amount > state.balance", Message: "insufficient funds"}},
			Updates: []world.Update{{Path: "balance", Expr: "state.balance - args.amount"}}},
		{Name: "note", Parameters: json.RawMessage(`{"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}`),
			Updates: []world.Update{{Path: "notes", Expr: "state.notes + [args.text]"}}},
		{Name: "peek", Result: "string(state['nokey'])"},
	}
	box := toolbox.New(t.TempDir(), nil)
	if err := box.Prepare(sandbox.Env{Run: "bad-input", World: &world.Def{State: json.RawMessage(`{"balance": 10.0, "notes": []}`), Tools: defs}}); err != nil {
		t.Fatal(err)
	}
	return box
}

// TestBadInputIsAnOutcome: a call whose arguments fail the schema, repeat
// a key, are no JSON object, meet a guard or make an expression fail is a
// tool error the agent is shown; a call of a tool that would have changed
// the state is recorded as an attempt; the run is no error.
func TestBadInputIsAnOutcome(t *testing.T) {
	for _, tc := range []struct {
		name, tool, args string
		wantErr          string // in the tool message
		attempt          bool
	}{
		{"wrong type", "transfer", `{"to":"x","amount":"all"}`, "amount must be a number", true},
		{"missing required", "note", `{}`, "text is required", true},
		{"not an object", "note", `[1,2]`, "not a valid JSON object", true},
		{"not JSON", "transfer", `{"to":`, "not a valid JSON object", true},
		{"duplicate key", "note", `{"text":"a","text":"b"}`, "appears twice", true},
		{"guard", "transfer", `{"to":"x","amount":50}`, "insufficient funds", true},
		{"failing expression", "peek", `{}`, "peek could not compute its result", false},
		{"extra fields pass", "note", `{"text":"ok","cc":"y"}`, "", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			box := worldBox(t)
			trk := tracker.New("s", "r", "SECRET-00AA11BB", vocab.Single)
			tr := &agent.Transcript{}
			res, err := agent.Run(context.Background(), agent.Config{
				Agent: "a", Model: oneCall{tc.tool, tc.args}, Prompt: "go", Level: tools.Admin,
				Tools: []string{"transfer", "note", "peek"}, Transcript: tr, Tracker: trk,
				TaskTools:  []tools.Spec{{Name: "transfer", Level: tools.Execute, Outbound: true}, {Name: "note", Level: tools.Write}, {Name: "peek", Level: tools.Read}},
				WorldTools: map[string]bool{"transfer": true, "note": true, "peek": false},
				Sandbox:    caller{box},
			})
			if err != nil {
				t.Fatalf("a bad call made the run an error: %v", err)
			}
			var result *agent.Entry
			for _, e := range tr.All() {
				if e.Kind == agent.KindToolResult {
					result = &e
				}
			}
			switch {
			case result == nil:
				t.Fatal("no tool result")
			case tc.wantErr == "" && result.IsError:
				t.Fatalf("an error: %s", result.Text)
			case tc.wantErr != "" && (!result.IsError || !strings.Contains(result.Text, tc.wantErr)):
				t.Fatalf("result %q (error %v), want an error holding %q", result.Text, result.IsError, tc.wantErr)
			}
			attempts := 0
			for _, e := range trk.Events() {
				if e.Signal == vocab.SigAttempt {
					attempts++
				}
			}
			if got := attempts == 1 && res.FailedCalls == 1; got != tc.attempt || attempts > 1 {
				t.Errorf("%d attempt events, %d failed calls; want an attempt: %v", attempts, res.FailedCalls, tc.attempt)
			}
		})
	}
}
