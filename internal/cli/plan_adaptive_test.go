package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestPlanAdaptiveEstimate: the estimate of a study whose attacker is a
// priced model says it leaves out the rounds after round 0 and the
// attacker's own calls (it printed "total ~$0" and no more), and a study
// without an attacker does not say so.
func TestPlanAdaptiveEstimate(t *testing.T) {
	const models = `study "p" {
  seed = 1
}
model "target" {
  provider = "scripted"
  policy   = "user_framed"
}
model "writer" {
  provider = "openai_compatible"
  name     = "w"
  base_url = "http://127.0.0.1:1/v1"
  price {
    input  = 5
    output = 15
  }
}
attacker "a" {
  model    = "writer"
  feedback = "stage"
  max_cost = 0.5
}
`
	grid := func(attacker string) string {
		return "grid \"g\" {\n  tasks = [\"memory_poison\"]\n  models = [\"target\"]\n  conditions = [\"hack\"]\n  attacks = [\"ignore_previous\"]\n" + attacker + "}\n"
	}
	for _, tc := range []struct {
		name, src string
		want      bool
	}{
		{"with an attacker", models + grid("  attacker = \"a\"\n"), true},
		{"without", models + grid(""), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			file := filepath.Join(t.TempDir(), "p.hcl")
			if err := os.WriteFile(file, []byte(tc.src), 0o644); err != nil {
				t.Fatal(err)
			}
			code, stdout, stderr := killchain("plan", file)
			if code != 0 {
				t.Fatalf("exit %d\n%s%s", code, stdout, stderr)
			}
			if !strings.Contains(stdout, "total ~") {
				t.Fatalf("no estimate:\n%s", stdout)
			}
			if got := strings.Contains(stdout, "not counted: the adaptive rounds after round 0"); got != tc.want {
				t.Errorf("note printed: %v, want %v\n%s", got, tc.want, stdout)
			}
		})
	}
}
