package hcldiag

import (
	"testing"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
)

func TestClosest(t *testing.T) {
	valid := []string{"send_report", "search", "audio_inject", "memory_poison", "name"}
	tests := []struct{ name, in, want string }{
		{"a typo", "send_reprot", "send_report"},
		{"two letters swapped in a short name", "nmae", "name"},
		{"a case slip", "Search", "search"},
		{"part of one name", "audio", "audio_inject"},
		{"nothing near", "zebra", ""},
		{"too short to guess", "x", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Closest(tt.in, valid); got != tt.want {
				t.Errorf("Closest(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestBlockRanges(t *testing.T) {
	src := "task \"t\" {\n  tools = [\"a\", \"b\"]\n  when  = { vendor = \"x\", \"odd key\" = \"y\" }\n}\n"
	f, diags := hclsyntax.ParseConfig([]byte(src), "f.hcl", hcl.Pos{Line: 1, Column: 1})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	b := f.Body.(*hclsyntax.Body).Blocks[0].AsHCLBlock()
	bc := Locate(b, nil)
	tests := []struct {
		name      string
		rng       *hcl.Range
		line, col int
	}{
		{"the label", bc.Label(), 1, 6},
		{"a list element", bc.Elem("tools", 1), 2, 17},
		{"a map value", bc.Key("when", "vendor"), 3, 22},
		{"a quoted map key's value", bc.Key("when", "odd key"), 3, 39},
		{"an absent attribute is the header", bc.Rng("nope"), 1, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.rng.Start.Line != tt.line || tt.rng.Start.Column != tt.col {
				t.Errorf("at %d:%d, want %d:%d", tt.rng.Start.Line, tt.rng.Start.Column, tt.line, tt.col)
			}
		})
	}
	for _, n := range []string{"memory_poison", "a.b-c", "9lives"} {
		if !ValidName(n) {
			t.Errorf("%q is a valid name", n)
		}
	}
	for _, n := range []string{"", "-a", "a b", "a/b"} {
		if ValidName(n) {
			t.Errorf("%q is not a valid name", n)
		}
	}
}
