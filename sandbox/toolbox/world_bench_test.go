package toolbox

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/killchain/killchain/internal/world"
	"github.com/killchain/killchain/sandbox"
)

// ledger is a state of n transactions.
func ledger(n int) json.RawMessage {
	var b strings.Builder
	b.WriteString(`{"balance": 1000000.0, "transactions": [`)
	for i := range n {
		if i > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, `{"id": "t%d", "to": "payee-%d", "amount": %d.5, "subject": "invoice %d"}`, i, i%97, i%500, i)
	}
	b.WriteString("]}")
	return json.RawMessage(b.String())
}

// BenchmarkToolCall is one tool call through the Box, as the toolbox
// serves it in every backend: an environment tool with a guard, two
// updates and a result over a state of 10,000 records, beside a task tool
// of fixed text (how a task tool answered before environments). Each
// reports its median and 99th percentile per call.
func BenchmarkToolCall(b *testing.B) {
	params := json.RawMessage(`{"type":"object","properties":{"recipient":{"type":"string"},"amount":{"type":"number"}},"required":["recipient","amount"]}`)
	send := world.ToolDef{Name: "send_money", Parameters: params, Outbound: true,
		Guards: []world.Guard{{When: "args.amount > state.balance", Message: "insufficient funds"}},
		Updates: []world.Update{{Path: "balance", Expr: "state.balance - args.amount"},
			{Path: "transactions", Expr: "state.transactions + [{'id': 't' + string(size(state.transactions)), 'to': args.recipient, 'amount': args.amount, 'subject': ''}]"}},
		Result: "'sent ' + string(args.amount) + '; balance ' + string(state.balance)"}
	fixed := sandbox.ToolDef{Name: "send_money", Description: "d", Level: "execute", Parameters: params, Outbound: true,
		Results: []sandbox.ToolResult{{Text: "sent"}}}
	cases := []struct {
		name string
		env  sandbox.Env
	}{
		{"world_10k_records", sandbox.Env{Run: "bench", Task: "t", Tools: []sandbox.ToolDef{{Name: "send_money", Description: "d", Level: "execute", Parameters: params, Outbound: true}},
			World: &world.Def{State: ledger(10000), Tools: []world.ToolDef{send}}}},
		{"fixed_text", sandbox.Env{Run: "bench", Task: "t", Tools: []sandbox.ToolDef{fixed}}},
	}
	args := json.RawMessage(`{"recipient":"eve","amount":1}`)
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			box := New(b.TempDir(), nil)
			if err := box.Prepare(c.env); err != nil {
				b.Fatal(err)
			}
			var took []time.Duration
			for b.Loop() {
				t0 := time.Now()
				res, err := box.Call("agent", "send_money", args)
				took = append(took, time.Since(t0))
				if err != nil || res.Error != "" {
					b.Fatal(err, res.Error)
				}
			}
			slices.Sort(took)
			b.ReportMetric(float64(took[len(took)/2].Microseconds()), "p50-µs")
			b.ReportMetric(float64(took[len(took)*99/100].Microseconds()), "p99-µs")
		})
	}
}
