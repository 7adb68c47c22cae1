package report

import (
	"testing"

	"github.com/killchain/killchain/internal/cost"
	"github.com/killchain/killchain/internal/results"
)

// TestPriceBasis pins the "priced at" column: a writer→reader pair, as
// modelLabel writes it, names each side's own price, never "no price" for a
// pair of priced models.
func TestPriceBasis(t *testing.T) {
	man := results.Manifest{Models: []results.ModelInfo{
		{Name: "box", Provider: "openai_compatible", Price: &cost.Price{Input: 2, Output: 8}},
		{Name: "box2", Provider: "openai_compatible", Price: &cost.Price{Input: 1, Output: 4}},
		{Name: "free", Provider: "openai_compatible"},
		{Name: "hacker", Provider: "scripted"},
	}}
	box, box2 := man.Models[0].Price.String(), man.Models[1].Price.String()
	tests := []struct {
		name, label, want string
	}{
		{"single priced", "box", box},
		{"single unpriced", "free", "no price ($0 recorded)"},
		{"scripted", "hacker", "scripted: $0"},
		{"pair", modelLabel(Cell{ModelA: "box", ModelB: "box2"}), "box: " + box + "; box2: " + box2},
		{"pair with an unpriced reader", modelLabel(Cell{ModelA: "box", ModelB: "free"}), "box: " + box + "; free: no price ($0 recorded)"},
		{"same-model pair", modelLabel(Cell{ModelA: "box", ModelB: "box"}), box},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := priceBasis(man, tt.label); got != tt.want {
				t.Errorf("priceBasis(%q) = %q, want %q", tt.label, got, tt.want)
			}
		})
	}
}
