package study

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/killchain/killchain/internal/cost"
	"github.com/killchain/killchain/internal/results"
)

const priceGrid = `
grid "g" {
  tasks      = ["tool_poison"]
  models     = ["gpt", "box", "ref"]
  conditions = ["plain"]
}
`

func priceStudy(studyBlock string) string {
	return studyBlock + `
model "gpt" {
  provider = "openai"
  name     = "gpt-4o-mini-2024-07-18"
}
model "box" {
  provider = "openai_compatible"
  name     = "qwen3-8b"
  base_url = "http://127.0.0.1:1/v1"
  price {
    input        = 0.2
    cached_input = 0.1
    output       = 0.8
  }
}
model "ref" {
  provider = "scripted"
  policy   = "compliant"
}
` + priceGrid
}

func TestPrices(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "prices.hcl"), []byte(`
price "gpt-4o-mini-2024-07-18" {
  input  = 0.15
  output = 0.6
}
price "box" {
  input  = 9
  output = 9
}
price "ref" {
  input  = 9
  output = 9
}
`), 0o644); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, "study.hcl")
	src := priceStudy("study \"t\" {\n  pricing    = \"prices.hcl\"\n  cost_limit = 2.5\n}\n")
	s, diags := Parse(file, []byte(src))
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	if s.CostLimit != 2.5 || s.Pricing != "prices.hcl" {
		t.Errorf("cost_limit %g pricing %q", s.CostLimit, s.Pricing)
	}
	tests := []struct {
		model, from string
		input       float64 // -1: no price
	}{
		{"gpt", "prices.hcl", 0.15}, // by the provider's model id
		{"box", "price block", 0.2}, // the block's own price wins over the file
		{"ref", "", -1},             // scripted: never priced
	}
	for _, tt := range tests {
		t.Run(tt.model, func(t *testing.T) {
			m, _ := s.Model(tt.model)
			switch {
			case tt.input < 0 && m.Price != nil:
				t.Errorf("priced %+v", *m.Price)
			case tt.input >= 0 && (m.Price == nil || m.Price.Input != tt.input || m.PriceFrom != tt.from):
				t.Errorf("price %+v from %q, want input %g from %q", m.Price, m.PriceFrom, tt.input, tt.from)
			}
		})
	}

	t.Run("a study folder keeps the prices it ran with", func(t *testing.T) {
		folder := t.TempDir()
		p := cost.Price{Input: 7, Output: 7}
		if err := results.WriteJSON(folder, results.ManifestFile, results.Manifest{Models: []results.ModelInfo{{Name: "gpt", Provider: "openai", Price: &p}}}); err != nil {
			t.Fatal(err)
		}
		s, diags := Parse(filepath.Join(folder, results.StudyFile), []byte(src)) // prices.hcl is not there
		if diags.HasErrors() {
			t.Fatal(diags)
		}
		if m, _ := s.Model("gpt"); m.Price == nil || m.Price.Input != 7 {
			t.Errorf("gpt priced %+v, want the manifest's", m.Price)
		}
	})
}

func TestPriceErrors(t *testing.T) {
	tests := []struct{ name, study, want string }{
		{"missing pricing file", "study \"t\" {\n  pricing = \"nowhere.json\"\n}\n", "Cannot read pricing file"},
		{"negative cost_limit", "study \"t\" {\n  cost_limit = -1\n}\n", "Invalid cost_limit"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, diags := Parse(filepath.Join(t.TempDir(), "s.hcl"), []byte(priceStudy(tt.study)))
			if !diags.HasErrors() || !strings.Contains(diags.Error(), tt.want) {
				t.Errorf("diagnostics %v, want %q", diags, tt.want)
			}
		})
	}
	t.Run("negative price", func(t *testing.T) {
		src := strings.Replace(priceStudy("study \"t\" {\n}\n"), "input        = 0.2", "input        = -0.2", 1)
		_, diags := Parse(filepath.Join(t.TempDir(), "s.hcl"), []byte(src))
		if !diags.HasErrors() || !strings.Contains(diags.Error(), "Invalid price") {
			t.Errorf("diagnostics %v, want Invalid price", diags)
		}
	})
}
