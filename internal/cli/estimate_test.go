package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/killchain/killchain/internal/results"
)

const estimateStudy = `
study "est" {
  seed      = 3
  sandbox   = "local"
  max_turns = 6
}
model "box" {
  provider = "openai_compatible"
  name     = "box-1"
  base_url = "http://127.0.0.1:9/v1"
  price {
    input  = 2
    output = 8
  }
}
model "ref" {
  provider = "scripted"
  policy   = "compliant"
}
grid "g" {
  tasks      = ["memory_poison"]
  models     = ["box", "ref"]
  conditions = ["plain"]
}
`

// writeEarlier writes a study folder whose runs.jsonl holds runs.
func writeEarlier(t *testing.T, runs ...results.Run) string {
	t.Helper()
	dir := t.TempDir()
	var b strings.Builder
	for i, r := range runs {
		r.RunID = fmt.Sprintf("%s-%d", r.Task, i)
		line, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		b.Write(append(line, '\n'))
	}
	if err := os.WriteFile(filepath.Join(dir, results.RunsFile), []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestEstimateFromEarlierFolder: an earlier folder's runs that counted no
// token (a scripted agent's) never make a hosted model's estimate $0; a run
// with no counted run of its task is estimated from its prompts, and the
// basis says so.
func TestEstimateFromEarlierFolder(t *testing.T) {
	file := filepath.Join(t.TempDir(), "est.hcl")
	if err := os.WriteFile(file, []byte(estimateStudy), 0o644); err != nil {
		t.Fatal(err)
	}
	s, plan := planOf(t, file)
	prompt, err := estimateRuns(s, plan, "")
	if err != nil {
		t.Fatal(err)
	}
	if prompt.Models["box"].USD <= 0 {
		t.Fatalf("prompt-size estimate of box is %g", prompt.Models["box"].USD)
	}
	scripted := results.Run{Task: "memory_poison", ModelA: "ref", Condition: "plain"}
	hosted := results.Run{Task: "memory_poison", ModelA: "box", Condition: "plain", InputTokens: 100000, OutputTokens: 10000}
	tests := []struct {
		name      string
		runs      []results.Run
		wantUSD   float64 // box's estimate; 0: the prompt-size one
		wantBasis string
	}{
		{name: "hosted runs of the task", runs: []results.Run{scripted, hosted}, wantUSD: 0.28, wantBasis: "the mean tokens of 1 finished run"},
		{name: "only scripted runs", runs: []results.Run{scripted, scripted}, wantBasis: "has no finished run that counted tokens"},
		{name: "no run of the task", runs: []results.Run{{Task: "tool_poison", ModelA: "box", Condition: "plain", InputTokens: 5, OutputTokens: 5}},
			wantBasis: "1 run of tasks it has no counted run of, from prompt sizes"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e, err := estimateRuns(s, plan, writeEarlier(t, tt.runs...))
			if err != nil {
				t.Fatal(err)
			}
			want := tt.wantUSD
			if want == 0 {
				want = prompt.Models["box"].USD
			}
			if got := e.Models["box"].USD; got < want*0.999 || got > want*1.001 {
				t.Errorf("box's estimate = %g, want %g", got, want)
			}
			if e.Models["ref"].USD != 0 {
				t.Errorf("scripted ref's estimate = %g, want 0", e.Models["ref"].USD)
			}
			if !strings.Contains(e.Basis, tt.wantBasis) {
				t.Errorf("basis %q lacks %q", e.Basis, tt.wantBasis)
			}
		})
	}
}

// TestUnpricedUnderLimit: with a cost limit set, run names the hosted
// models without a price (the limit cannot stop them), never a scripted
// one; without a limit it names none.
func TestUnpricedUnderLimit(t *testing.T) {
	src := strings.Replace(estimateStudy, "  price {\n    input  = 2\n    output = 8\n  }\n", "", 1)
	tests := []struct {
		name      string
		src       string
		flagLimit float64
		want      string
	}{
		{"flag limit, no price", src, 5, "box"},
		{"study limit, no price", strings.Replace(src, "max_turns = 6", "max_turns = 6\n  cost_limit = 5", 1), 0, "box"},
		{"no limit", src, 0, ""},
		{"limit, priced", estimateStudy, 5, ""},
		{"limit, unpriced classifier", strings.Replace(strings.Replace(estimateStudy, "max_turns = 6", "max_turns = 6\n  classifier = \"judge\"", 1),
			"grid \"g\" {", "model \"judge\" {\n  provider = \"openai_compatible\"\n  name = \"j\"\n  base_url = \"http://127.0.0.1:9/v1\"\n}\ngrid \"g\" {\n  defenses = [\"none\", \"pi_detector\"]", 1), 5, "judge"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			file := filepath.Join(t.TempDir(), "est.hcl")
			if err := os.WriteFile(file, []byte(tt.src), 0o644); err != nil {
				t.Fatal(err)
			}
			s, plan := planOf(t, file)
			if got := strings.Join(unpricedUnderLimit(s, plan, tt.flagLimit), ","); got != tt.want {
				t.Errorf("unpricedUnderLimit = %q, want %q", got, tt.want)
			}
		})
	}
}
