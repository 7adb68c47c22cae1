package world

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// bigState is a state of n transactions.
func bigState(n int) json.RawMessage {
	var b strings.Builder
	b.WriteString(`{"balance": 1000000.0, "transactions": [`)
	for i := range n {
		if i > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, `{"id": %d, "to": "payee-%d", "amount": %d.5, "subject": "invoice %d"}`, i, i%97, i%500, i)
	}
	b.WriteString("]}")
	return json.RawMessage(b.String())
}

// BenchmarkSendMoney10k is one call with guards, two updates and a result
// over a state of 10,000 records.
func BenchmarkSendMoney10k(b *testing.B) {
	w, err := Open(Def{State: bigState(10000), Tools: bankTools[:2]})
	if err != nil {
		b.Fatal(err)
	}
	args := json.RawMessage(`{"recipient":"eve","amount":1,"subject":"s"}`)
	b.ReportAllocs()
	for b.Loop() {
		if a, err := w.Call(b.Context(), "a", "send_money", args); err != nil || a.Error != "" {
			b.Fatal(err, a.Error)
		}
	}
}

// BenchmarkScan10k is a read whose result scans every record.
func BenchmarkScan10k(b *testing.B) {
	w, err := Open(Def{State: bigState(10000), Tools: []ToolDef{{Name: "find",
		Parameters: json.RawMessage(`{"type":"object","properties":{"to":{"type":"string"}}}`),
		Result:     "string(state.transactions.filter(t, t.to == args.to).size())"}}})
	if err != nil {
		b.Fatal(err)
	}
	args := json.RawMessage(`{"to":"payee-3"}`)
	b.ReportAllocs()
	for b.Loop() {
		if a, err := w.Call(b.Context(), "a", "find", args); err != nil || a.Error != "" {
			b.Fatal(err, a.Error)
		}
	}
}
