package study

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"
)

// header is a valid study and model prefix of 14 lines for the cases below.
const header = `study "t" {
}
model "a" {
  provider = "scripted"
  policy   = "compliant"
}
model "b" {
  provider = "scripted"
  policy   = "resistant"
}
model "gpt" {
  provider = "openai"
  name     = "gpt-4o-mini"
}
`

// diagKeys renders diagnostics as "line:col severity summary".
func diagKeys(diags hcl.Diagnostics) []string {
	var out []string
	for _, d := range diags {
		sev := "error"
		if d.Severity == hcl.DiagWarning {
			sev = "warning"
		}
		pos := "-"
		if d.Subject != nil {
			pos = fmt.Sprintf("%d:%d", d.Subject.Start.Line, d.Subject.Start.Column)
		}
		out = append(out, pos+" "+sev+" "+d.Summary)
	}
	return out
}

func TestParseInvalid(t *testing.T) {
	grid := func(body string) string { return header + "grid \"g\" {\n" + body + "\n}\n" }
	okGrid := "  tasks = [\"memory_poison\"]\n  models = [\"a\"]\n  conditions = [\"hack\"]"
	cases := []struct {
		name string
		src  string
		want []string
	}{
		{
			name: "syntax error",
			src:  "study \"t\" {\n  seed = \n}\n",
			want: []string{"2:10 error Invalid expression"},
		},
		{
			name: "missing study block",
			src:  "model \"a\" {\n  provider = \"scripted\"\n  policy = \"compliant\"\n}\n",
			want: []string{"1:1 error Missing study block"},
		},
		{
			name: "two study blocks",
			src:  header + `study "u" {}`,
			want: []string{"15:7 error Duplicate study block"},
		},
		{
			name: "duplicate model points to the second",
			src:  header + "model \"a\" {\n  provider = \"late\"\n}\n",
			want: []string{"15:7 error Duplicate model block"},
		},
		{
			name: "unknown provider and policy",
			src: `study "t" {}
model "x" { provider = "acme" }
model "y" {
  provider = "scripted"
  policy   = "brave"
}
model "z" { provider = "scripted" }
model "w" { provider = "ollama" }
model "v" {
  provider = "anthropic"
  name     = "claude"
  policy   = "compliant"
}`,
			want: []string{
				"2:24 error Unknown provider",
				"5:14 error Unknown policy",
				"7:24 error Missing policy",
				"8:1 error Missing model name",
				"12:14 error Policy on a non-scripted model",
			},
		},
		{
			name: "bad model values",
			src: `study "t" {}
model "m" {
  provider        = "openai"
  name            = "x"
  api             = "graphql"
  timeout         = "soon"
  temperature     = 3
  max_tokens      = 0
  thinking_budget = 100
  max_retries     = -1
}
model "n" {
  provider = "deepseek"
  name     = "deepseek-chat"
  api      = "responses"
  timeout  = "-5s"
}
model "p" {
  provider = "openai_compatible"
  name     = "q"
}`,
			want: []string{
				"5:21 error Unknown api",
				"6:21 error Invalid duration",
				"7:21 error Invalid temperature",
				"8:21 error Invalid max_tokens",
				"9:21 error thinking_budget without thinking",
				"10:21 error Invalid max_retries",
				"15:14 error api on a non-openai model",
				"16:14 error Invalid duration",
				"19:14 error Missing base_url",
			},
		},
		{
			name: "bad study values",
			src: `study "t" {
  concurrency = 0
  sandbox     = "vm"
  runtime     = "kata"
  classifier  = "nobody"
  max_turns   = 0
  memory_mb   = -1
}`,
			want: []string{
				"2:17 error Invalid concurrency",
				"3:17 error Unknown sandbox",
				"4:17 error Unknown runtime",
				"5:17 error Unknown model",
				"6:17 error Invalid max_turns",
				"7:17 error Invalid memory_mb",
			},
		},
		{
			name: "unknown hack classifier model",
			src: `study "t" {
  hack_classifier = "judge"
}`,
			want: []string{
				"2:21 error Unknown model",
			},
		},
		{
			name: "bad retry and admission values",
			src: `study "t" {
  attempts          = 0
  retry_backoff     = "soon"
  heavy_concurrency = -1
  warm_pool         = -2
}`,
			want: []string{
				"2:23 error Invalid attempts",
				"3:23 error Invalid duration",
				"4:23 error Invalid heavy_concurrency",
				"5:23 error Invalid warm_pool",
			},
		},
		{
			name: "negative retry_backoff",
			src:  "study \"t\" {\n  retry_backoff = \"-1s\"\n}\n",
			want: []string{"2:19 error Invalid duration"},
		},
		{
			name: "negative concurrency",
			src:  "study \"t\" {\n  concurrency = -2\n}\n",
			want: []string{"2:17 error Invalid concurrency"},
		},
		{
			name: "wrong attribute type does not cascade",
			src:  "study \"t\" {\n  concurrency = \"many\"\n}\n",
			want: []string{"2:18 error Unsuitable value type"},
		},
		{
			name: "unknown attribute and block",
			src:  "study \"t\" {\n  colour = 1\n}\nrecipe \"x\" {}\n",
			want: []string{"2:3 error Unknown attribute", "4:1 error Unknown block type"},
		},
		{
			name: "built-in condition and defense redeclared",
			src: header + `condition "hack" { payload = true }
defense "all" { kind = "all" }
condition "x" { payload = false }
condition "x" { payload = true }
defense "d" { kind = "firewall" }`,
			want: []string{
				"15:11 error Built-in condition redeclared",
				"16:9 error Built-in defense redeclared",
				"18:11 error Duplicate condition block",
				"19:22 error Unknown defense kind",
			},
		},
		{
			name: "defense attributes on the wrong kind",
			src: header + `defense "d" {
  kind       = "spotlighting"
  patterns   = ["x"]
  classifier = "a"
}
defense "e" {
  kind       = "write_filter"
  patterns   = ["ok", "(unclosed"]
  datamark   = true
}
defense "f" {
  kind       = "pi_detector"
  classifier = "ghost"
}`,
			want: []string{
				"17:16 error Unused attribute",
				"18:16 error Unused attribute",
				"22:23 error Invalid pattern",
				"23:16 error Unused attribute",
				"27:16 error Unknown model",
			},
		},
		{
			name: "unknown names in a grid",
			src: grid(`  tasks      = ["memory_poison", "nope", "memory_poison"]
  models     = ["a", "ghost", "a"]
  conditions = ["hack", "loud"]
  defenses   = ["none", "moat"]`),
			want: []string{
				"16:34 error Unknown task",
				"16:42 error Duplicate task",
				"17:22 error Unknown model",
				"17:31 error Duplicate model",
				"18:25 error Unknown condition",
				"19:25 error Unknown defense",
			},
		},
		{
			name: "variant missing from one task says which",
			src: grid(`  tasks      = ["memory_poison", "cross_modal_relay"]
  variants   = ["direct", "pdf_append"]
  models     = ["a"]
  conditions = ["hack"]`),
			want: []string{
				"17:17 error Unknown variant",
				"17:27 error Unknown variant",
			},
		},
		{
			name: "repeats zero",
			src:  grid(okGrid + "\n  repeats = 0"),
			want: []string{"19:13 error Invalid repeats"},
		},
		{
			name: "negative repeats",
			src:  grid(okGrid + "\n  repeats = -3"),
			want: []string{"19:13 error Negative repeats"},
		},
		{
			name: "pairs not of length 2",
			src: grid(`  tasks      = ["propagation"]
  pairs      = [["a"], ["a", "b", "gpt"], ["a", "ghost"], ["a", "b"], ["a", "b"]]
  conditions = ["hack"]`),
			want: []string{
				"17:17 error Invalid pair",
				"17:24 error Invalid pair",
				"17:49 error Unknown model",
				"17:71 error Duplicate pair",
			},
		},
		{
			name: "pair repeating a same-model pair",
			src: grid(`  tasks      = ["propagation"]
  models     = ["a"]
  pairs      = [["a", "a"]]
  conditions = ["hack"]`),
			want: []string{"18:17 error Duplicate pair"},
		},
		{
			name: "single-agent task without models",
			src: grid(`  tasks      = ["memory_poison", "propagation"]
  pairs      = [["a", "b"]]
  conditions = ["hack"]`),
			want: []string{"16:17 error Task without models"},
		},
		{
			name: "grid without models or pairs",
			src:  grid(`  tasks = ["memory_poison"]` + "\n  conditions = [\"hack\"]"),
			want: []string{"15:6 error No models"},
		},
		{
			name: "pairs without relay tasks warn",
			src:  grid(okGrid + "\n  pairs = [[\"a\", \"b\"]]"),
			want: []string{"19:11 warning Unused pairs"},
		},
		{
			name: "missing required grid attributes",
			src:  grid(`  models = ["a"]`),
			want: []string{"15:10 error Missing required argument", "15:10 error Missing required argument"},
		},
		{
			name: "empty lists",
			src: grid(`  tasks      = []
  variants   = []
  models     = ["a"]
  conditions = []
  defenses   = []
  batch      = ""`),
			want: []string{
				"16:16 error Empty tasks",
				"17:16 error Empty variants",
				"19:16 error Empty conditions",
				"20:16 error Empty defenses",
				"21:16 error Invalid batch",
			},
		},
		{
			name: "duplicate grid and bad names",
			src:  header + "grid \"g\" {\n" + okGrid + "\n}\ngrid \"g\" {\n" + okGrid + "\n}\ngrid \"a b\" {\n" + okGrid + "\n}\n",
			want: []string{"20:6 error Duplicate grid block", "25:6 error Invalid grid name"},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s, diags := Parse("t.hcl", []byte(c.src))
			got := diagKeys(diags)
			if !slices.Equal(got, c.want) {
				t.Errorf("diagnostics:\n  got  %q\n  want %q", got, c.want)
			}
			if diags.HasErrors() != (s == nil) {
				t.Errorf("study returned = %v with errors = %v", s != nil, diags.HasErrors())
			}
			for _, d := range diags {
				if d.Subject == nil || d.Subject.Filename != "t.hcl" {
					t.Errorf("diagnostic %q has no range in t.hcl", d.Summary)
				}
			}
		})
	}
}

func TestLoadMissingFile(t *testing.T) {
	s, diags := Load("testdata/does-not-exist.hcl")
	if s != nil || !diags.HasErrors() {
		t.Fatalf("Load of a missing file = %v, %v", s, diags)
	}
}

// TestUnknownNameSuggests: a misspelt name in a grid or a threshold gets
// the nearest known name, as --tasks does; a name near none gets only the
// known names.
func TestUnknownNameSuggests(t *testing.T) {
	grid := func(attr, value string) string {
		attrs := map[string]string{"tasks": `["memory_poison"]`, "models": `["a"]`, "conditions": `["hack"]`}
		attrs[attr] = value
		return header + "grid \"g\" {\n  tasks = " + attrs["tasks"] + "\n  models = " + attrs["models"] +
			"\n  conditions = " + attrs["conditions"] + "\n  defenses = " + cmp.Or(attrs["defenses"], `["none"]`) + "\n}\n"
	}
	tests := []struct {
		name   string
		src    string
		detail string // the detail's start
	}{
		{"task", grid("tasks", `["tool_poisn"]`), `"tool_poisn" is not a task; did you mean "tool_poison"? (known: `},
		{"task held in a longer name", grid("tasks", `["audio"]`), `"audio" is not a task; did you mean "audio_inject"? (known: `},
		{"condition", grid("conditions", `["hak"]`), `"hak" is not a condition of this study; did you mean "hack"? (known: `},
		{"defense", grid("defenses", `["spotlight"]`), `"spotlight" is not a defense of this study; did you mean "spotlighting"? (known: `},
		{"model", grid("models", `["gpt4"]`), `grid "g" names model "gpt4", which no model block declares; did you mean "gpt"? (known: `},
		{"threshold task", grid("", "") + "threshold \"x\" {\n  metric = \"asr\"\n  tasks = [\"memory_poisn\"]\n  max = 0.1\n}\n",
			`"memory_poisn" is not a task of this study; did you mean "memory_poison"? (known: `},
		{"nothing near", grid("tasks", `["teleport"]`), `"teleport" is not a task (known: `},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, diags := Parse("t.hcl", []byte(tt.src))
			var details []string
			for _, d := range diags {
				details = append(details, d.Detail)
				if strings.HasPrefix(d.Detail, tt.detail) {
					return
				}
			}
			t.Errorf("no diagnostic starts %q; got %q", tt.detail, details)
		})
	}
}
