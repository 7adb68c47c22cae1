package world

import (
	"encoding/json"
	"testing"
)

// FuzzCall sends any bytes as a call's arguments: the answer is a result
// or a tool error, never a Go error or a panic, and a failed call changes
// nothing.
func FuzzCall(f *testing.F) {
	for _, s := range []string{`{"recipient":"eve","amount":10}`, `{"amount":1e308,"recipient":"x"}`, `[]`, `null`, `{"recipient":{"a":[1]},"amount":-0}`,
		`{"recipient":"e","amount":1,"recipient":"f"}`, `{"id":1,"on":true}`, `"SECRET-00000000"`} {
		f.Add("send_money", []byte(s))
		f.Add("set_recurring", []byte(s))
	}
	f.Fuzz(func(t *testing.T, tool string, args []byte) {
		w, err := Open(Def{State: json.RawMessage(bankState), Tools: bankTools})
		if err != nil {
			t.Fatal(err)
		}
		before, _ := w.Final()
		a, err := w.Call(t.Context(), "a", tool, json.RawMessage(args))
		if err != nil {
			t.Fatalf("a call's arguments are an outcome, never an error: %v", err)
		}
		after, err := w.Final()
		if err != nil {
			t.Fatal(err)
		}
		if a.Error != "" && (string(before.State) != string(after.State) || len(after.Calls) != 0) {
			t.Fatalf("a failed call changed the world: %s", after.State)
		}
	})
}
