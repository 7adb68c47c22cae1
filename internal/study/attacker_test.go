package study

import (
	"slices"
	"strings"
	"testing"

	"github.com/killchain/killchain/internal/attacks"
)

func TestAttackerBlocks(t *testing.T) {
	grid := func(attacker, attacks string) string {
		return "grid \"g\" {\n  tasks = [\"memory_poison\"]\n  models = [\"a\"]\n  conditions = [\"plain\", \"hack\"]\n" + attacks + attacker + "}\n"
	}
	withAttacks := "  attacks = [\"ignore_previous\", \"tool_knowledge+base64\"]\n"
	cases := []struct {
		name string
		src  string
		want []string // "line:col error summary"; nil: valid
	}{
		{"reference attacker", "attacker \"r\" {\n  feedback = \"stage\"\n}\n" + grid("  attacker = \"r\"\n", withAttacks), nil},
		{"model attacker", "attacker \"m\" {\n  model = \"gpt\"\n  feedback = \"outcome\"\n  max_tokens = 9000\n}\n" + grid("  attacker = \"m\"\n", withAttacks), nil},
		{"bad feedback", "attacker \"r\" {\n  feedback = \"stages\"\n}\n", []string{"16:14 error Invalid feedback"}},
		{"bad rounds", "attacker \"r\" {\n  feedback = \"none\"\n  rounds = 0\n  payloads = -1\n}\n",
			[]string{"17:12 error Invalid rounds", "18:14 error Invalid payloads"}},
		{"unknown model", "attacker \"r\" {\n  feedback = \"none\"\n  model = \"nope\"\n}\n", []string{"17:11 error Unknown model"}},
		{"families for a model", "attacker \"r\" {\n  feedback = \"none\"\n  model = \"gpt\"\n  families = [\"paper_direct\"]\n}\n", []string{"17:11 error Families for a model"}},
		{"unknown family and encoding", "attacker \"r\" {\n  feedback = \"none\"\n  families = [\"denial_of_service\"]\n  encodings = [\"split\"]\n}\n",
			[]string{"17:15 error Unknown family", "18:16 error Unknown encoding"}},
		{"unknown attacker", grid("  attacker = \"r\"\n", withAttacks), []string{"20:14 error Unknown attacker"}},
		{"attacker without attacks", "attacker \"r\" {\n  feedback = \"stage\"\n}\n" + grid("  attacker = \"r\"\n", ""), []string{"22:14 error Attacker without attacks"}},
		{"budgets of the reference attacker", "attacker \"r\" {\n  feedback = \"none\"\n  max_cost = 1\n  max_tokens = 500\n}\n",
			[]string{"17:14 error max_cost without a model", "18:16 error max_tokens without a model"}},
		{"max_cost of an unpriced model", "attacker \"r\" {\n  feedback = \"none\"\n  model = \"gpt\"\n  max_cost = 1\n}\n", []string{"18:14 error max_cost without a price"}},
		{"max_cost of a priced model", "model \"p\" {\n  provider = \"openai\"\n  name = \"gpt-4o\"\n  price {\n    input = 1\n    output = 2\n  }\n}\n" +
			"attacker \"r\" {\n  feedback = \"none\"\n  model = \"p\"\n  max_cost = 1\n}\n", nil},
		{"attacker with clean conditions only", "attacker \"r\" {\n  feedback = \"stage\"\n}\n" +
			strings.Replace(grid("  attacker = \"r\"\n", withAttacks), `["plain", "hack"]`, `["plain"]`, 1), []string{"23:14 error Attacker without an attacked condition"}},
		{"duplicate", "attacker \"r\" {\n  feedback = \"stage\"\n}\nattacker \"r\" {\n  feedback = \"none\"\n}\n", []string{"18:10 error Duplicate attacker block"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s, diags := Parse("t.hcl", []byte(header+tc.src))
			got := diagKeys(diags)
			if tc.want == nil {
				if diags.HasErrors() {
					t.Fatalf("diagnostics %q", got)
				}
				return
			}
			if !slices.Equal(got, tc.want) {
				t.Fatalf("diagnostics %q, want %q", got, tc.want)
			}
			if s != nil {
				t.Fatal("a study with errors")
			}
		})
	}
}

// TestAttackerPlan checks a grid's attacker marks its attacked library
// runs (round 0) and nothing else, that the cells' rounds get stable,
// distinct run ids, and that the attacker is part of the plan's hash.
func TestAttackerPlan(t *testing.T) {
	src := header + "attacker \"r\" {\n  feedback = \"stage\"\n  rounds = 2\n}\n" +
		"grid \"g\" {\n  tasks = [\"memory_poison\", \"propagation\"]\n  models = [\"a\"]\n  variants = [\"direct\"]\n  conditions = [\"plain\", \"hack\"]\n  attacks = [\"ignore_previous\"]\n  repeats = 2\n  attacker = \"r\"\n}\n"
	s, diags := Parse("t.hcl", []byte(src))
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	plan, err := s.Plan()
	if err != nil {
		t.Fatal(err)
	}
	loops := map[string]Run{}
	for _, r := range plan {
		adaptive := r.Attacker != ""
		if want := r.Attacked && r.Attack != ""; adaptive != want {
			t.Errorf("%s (%s, attack %q): attacker %q", r.RunID, r.Condition, r.Attack, r.Attacker)
		}
		if adaptive {
			loops[r.Loop()] = r
			if r.Payload != r.Attack || r.Round != 0 {
				t.Errorf("%s: payload %q round %d", r.RunID, r.Payload, r.Round)
			}
		}
	}
	if len(loops) != 2 {
		t.Fatalf("%d adaptive cells, want 2: %v", len(loops), loops)
	}
	run0 := loops["g/memory_poison@direct/a/hack/none"]
	a, err := s.Attack("paper_direct+base64")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := s.Attack("end_of_data")
	first, err := s.RoundRuns(run0, 1, []string{"r1.1", "r1.2"}, []string{"ignore_previous", ""}, []attacks.Attack{a, b})
	if err != nil {
		t.Fatal(err)
	}
	again, _ := s.RoundRuns(run0, 1, []string{"r1.1", "r1.2"}, []string{"ignore_previous", ""}, []attacks.Attack{a, b})
	ids := map[string]bool{}
	for _, r := range plan {
		ids[r.RunID] = true
	}
	for i, r := range first {
		if ids[r.RunID] || r.RunID != again[i].RunID {
			t.Errorf("round run %s: collides or is unstable (%s)", r.RunID, again[i].RunID)
		}
		ids[r.RunID] = true
		if r.Round != 1 || r.Planted == nil || r.Variant != r.Payload || !strings.HasPrefix(r.Cell, "g/memory_poison/r1.") {
			t.Errorf("round run %+v", r)
		}
		if _, err := s.RunVariant(mustTask(t, s, r.Task), r); err != nil {
			t.Errorf("%s: %v", r.RunID, err)
		}
	}
	if len(first) != 4 {
		t.Errorf("%d round runs, want 2 payloads × 2 repeats", len(first))
	}
	h1 := s.PlanHash(plan)
	s.Attackers[0].Feedback = "none"
	if s.PlanHash(plan) == h1 {
		t.Error("changing the attacker leaves the plan's hash as it was")
	}
}
