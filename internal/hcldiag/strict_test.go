package hcldiag

import (
	"fmt"
	"slices"
	"testing"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
)

type rawInner struct {
	Port *int `hcl:"port,optional"`
}

type rawPlain struct {
	Name  *string   `hcl:"name,optional"`
	Inner *rawInner `hcl:"inner,block"`
}

type rawRemain struct {
	Name *string  `hcl:"name,optional"`
	Body hcl.Body `hcl:",remain"`
}

// TestStrictDecode: whatever the raw struct, an unknown attribute or block
// is an error at its name with the closest known name, once; a body with a
// remain field leaves its nested blocks to its decoder, and a nested block
// struct is checked against its own fields.
func TestStrictDecode(t *testing.T) {
	tests := []struct {
		name string
		src  string
		raw  func() any
		want []string // "line:col summary: detail"
	}{
		{"a known attribute", `b "x" { name = "a" }`, func() any { return &rawPlain{} }, nil},
		{"a misspelt attribute", "b \"x\" {\n  nmae = \"a\"\n}", func() any { return &rawPlain{} },
			[]string{`2:3 Unknown attribute: A b block takes no attribute "nmae"; did you mean "name"? (its attributes: name).`}},
		{"a misspelt attribute beside a remain body", "b \"x\" {\n  nmae = \"a\"\n  anything {}\n}", func() any { return &rawRemain{} },
			[]string{`2:3 Unknown attribute: A b block takes no attribute "nmae"; did you mean "name"? (its attributes: name).`}},
		{"an unknown block", "b \"x\" {\n  iner {}\n}", func() any { return &rawPlain{} },
			[]string{`2:3 Unknown block type: A b block holds no "iner" block; did you mean "inner"? (its blocks: inner).`}},
		{"inside a nested block", "b \"x\" {\n  inner {\n    prot = 1\n  }\n}", func() any { return &rawPlain{} },
			[]string{`3:5 Unknown attribute: An inner block takes no attribute "prot"; did you mean "port"? (its attributes: port).`}},
		{"nothing close", "b \"x\" {\n  zebra = 1\n}", func() any { return &rawPlain{} },
			[]string{`2:3 Unknown attribute: A b block takes no attribute "zebra" (its attributes: name).`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, diags := hclsyntax.ParseConfig([]byte(tt.src), "f.hcl", hcl.Pos{Line: 1, Column: 1})
			if diags.HasErrors() {
				t.Fatal(diags)
			}
			b := f.Body.(*hclsyntax.Body).Blocks[0].AsHCLBlock()
			l := &List{}
			Decode(l, b, nil, tt.raw())
			var got []string
			for _, d := range l.Diags {
				got = append(got, fmt.Sprintf("%d:%d %s: %s", d.Subject.Start.Line, d.Subject.Start.Column, d.Summary, d.Detail))
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("got  %q\nwant %q", got, tt.want)
			}
		})
	}
}

func TestStrictContent(t *testing.T) {
	src := "study \"s\" {}\nstudi \"t\" {}\nseed = 1\n"
	f, _ := hclsyntax.ParseConfig([]byte(src), "f.hcl", hcl.Pos{Line: 1, Column: 1})
	l := &List{}
	Content(l, f.Body, &hcl.BodySchema{Blocks: []hcl.BlockHeaderSchema{{Type: "study", LabelNames: []string{"name"}}}}, "A study file")
	var got []string
	for _, d := range l.Diags {
		got = append(got, fmt.Sprintf("%d:%d %s", d.Subject.Start.Line, d.Subject.Start.Column, d.Summary))
	}
	if want := []string{"3:1 Unknown attribute", "2:1 Unknown block type"}; !slices.Equal(got, want) {
		t.Errorf("got %q, want %q (and none of HCL's own)", got, want)
	}
}
