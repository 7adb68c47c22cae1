package tasks

import (
	"fmt"
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"

	"github.com/killchain/killchain/internal/hcldiag"
)

// TestLocate maps a place in an expression's value (line and column, as
// CEL reports them) to the file: through escapes, doubled template
// markers, a heredoc's indentation and trimmed white space. want is the
// text the file holds from the mapped place on.
func TestLocate(t *testing.T) {
	tests := []struct {
		name      string
		attr      string // the attribute as written, after "x = "
		line, col int    // in the trimmed value
		want      string
	}{
		{"a quoted string", `"state.balanse > 0.0"`, 1, 7, "balanse > 0.0\""},
		{"after an escaped quote", `"args.to == \"x\" && state.balanse"`, 1, 25, "balanse\""},
		{"after an escaped newline", `"state.notes.join('\\n') + state.balanse"`, 1, 32, "balanse\""},
		{"after a unicode escape", `"'\u00e9' + state.balanse"`, 1, 13, "balanse\""},
		{"after a doubled marker", `"'$${x}' + state.balanse"`, 1, 16, "balanse\""},
		{"a heredoc's second line", "<<-EOT\n    state.a &&\n      state.balanse > 0.0\n    EOT", 2, 9, "balanse > 0.0\n"},
		{"a heredoc, trimmed", "<<EOT\n\n  state.balanse\nEOT", 1, 7, "balanse\n"},
		{"non-ASCII before", `"'ü' == state.balanse"`, 1, 14, "balanse\""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := []byte("x = " + tt.attr + "\n")
			f, diags := hclsyntax.ParseConfig(src, "f.hcl", hcl.Pos{Line: 1, Column: 1})
			if diags.HasErrors() {
				t.Fatal(diags)
			}
			expr := f.Body.(*hclsyntax.Body).Attributes["x"].Expr
			pos, exact := locate(expr, src, true).pos(tt.line, tt.col)
			if !exact {
				t.Fatal("not mapped")
			}
			if got := string(src[pos.Byte:]); !strings.HasPrefix(got, tt.want) {
				t.Errorf("maps to %q, want %q", got, tt.want)
			}
			lines := strings.Split(string(src), "\n")
			if got := []rune(lines[pos.Line-1])[pos.Column-1:]; !strings.HasPrefix(string(got)+"\n", strings.SplitAfter(tt.want, "\n")[0]) {
				t.Errorf("line %d column %d is %q, want %q", pos.Line, pos.Column, string(got), tt.want)
			}
		})
	}
	t.Run("an expression that is not a string literal", func(t *testing.T) {
		src := []byte("x = trimspace(\"state.b\")\n")
		f, _ := hclsyntax.ParseConfig(src, "f.hcl", hcl.Pos{Line: 1, Column: 1})
		pos, exact := locate(f.Body.(*hclsyntax.Body).Attributes["x"].Expr, src, true).pos(1, 7)
		if exact || pos.Column != 5 {
			t.Errorf("mapped %v (exact %v), want the expression's start", pos, exact)
		}
	})
}

func TestCheckPlaceholders(t *testing.T) {
	tests := []struct {
		name string
		src  string
		want []string // "line:col hint"
	}{
		{"known ones pass", `task "t" { description = "{{PAYLOAD}} {{PAYLOAD:a-b}} {{CANARY}} {{ATTACKER}} {{HANDOFF}}" }`, nil},
		{"a misspelt one", "task \"t\" {\n  description = \"x {{PAYLAOD}}\"\n}", []string{`2:20 did you mean {{PAYLOAD}}?`}},
		{"an invented one", `task "t" { description = "{{VICTIM}}" }`, []string{`1:27 `}},
		{"a bad placement name", `task "t" { description = "{{PAYLOAD:a b}}" }`, []string{`1:27 a placement's name`}},
		{"a template's own only in attacks", `task "t" { description = "{{GOAL}}" }` + "\n" + `attack "a" { template = "{{GOAL}} {{USER}} {{usr}}" }`,
			[]string{`1:27 `, `2:44 did you mean {{USER}}?`}},
		{"page content in braces is left alone", `task "t" { description = "{{ .Name }} {{user}}" }`, nil},
		{"a workspace's vars", `task "t" {
  workspace {
    vars = { TIMEOUT = "5" }
    file "a" { text = "{{TIMEOUT}} {{CANARY}} {{TIMEOUTS}}" }
  }
}`, []string{`4:47 did you mean {{TIMEOUT}}?`}},
		{"a study's condition", `condition "c" { instructions = "{{VICTIM}}" }`, []string{`1:33 `}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, diags := hclsyntax.ParseConfig([]byte(tt.src), "f.hcl", hcl.Pos{Line: 1, Column: 1})
			if diags.HasErrors() {
				t.Fatal(diags)
			}
			l := &hcldiag.List{}
			CheckPlaceholders(l, "f.hcl", []byte(tt.src), f.Body)
			if len(l.Diags) != len(tt.want) {
				t.Fatalf("%d problems, want %d: %v", len(l.Diags), len(tt.want), l.Diags)
			}
			for i, d := range l.Diags {
				pos, hint, _ := strings.Cut(tt.want[i], " ")
				if got := d.Subject.Start; pos != "" && got.Line*1000+got.Column != atoiPos(pos) {
					t.Errorf("at %d:%d, want %s", got.Line, got.Column, pos)
				}
				if !strings.Contains(d.Detail, hint) {
					t.Errorf("%q lacks %q", d.Detail, hint)
				}
			}
		})
	}
}

func atoiPos(s string) int {
	var l, c int
	_, _ = fmt.Sscanf(s, "%d:%d", &l, &c)
	return l*1000 + c
}
