package tasks

import (
	"slices"
	"strings"
	"testing"

	"github.com/killchain/killchain/internal/attacks"
	"github.com/killchain/killchain/internal/canary"
)

// TestAttackVariantsOnEveryTask plants attacks of every family and
// encoding in every built-in injection task, at each placement set, and
// checks the environment carries the run's canary (none for denial of
// service) in a form the recognizer finds, and that what cannot be
// delivered is refused.
func TestAttackVariantsOnEveryTask(t *testing.T) {
	const c = "SECRET-0A1B2C3D"
	specs := []string{"tool_knowledge+base64", "ignore_previous+tags+zero_width", "important_message+rot13+hex",
		"system_message+homoglyph", "end_of_data+leetspeak", "polite_request", "denial_of_service", "paper_override+html_comment",
		"tool_knowledge+split+base64"}
	for _, tk := range Builtin().All() {
		if tk.Reward != nil {
			continue
		}
		if tk.Environment != nil {
			continue // a suite's user task: TestSuiteAttackVariantsOnEveryUserTask
		}
		for _, own := range tk.AttackPlacements() {
			for _, spec := range specs {
				a, err := attacks.Parse(spec, nil)
				if err != nil {
					t.Fatal(err)
				}
				t.Run(tk.Name+"/"+tk.AttackVariantName(spec, own), func(t *testing.T) {
					v, err := tk.AttackVariant(a, own, "qwen3-8b")
					switch {
					case own.Spoken && len(a.Encodings) > 0, a.Markup() && !tk.markupOnly(own), a.Chars() && strings.Contains(own.Surface, "pdf"),
						a.Split() && len(tk.filled(own)) < 2:
						if err == nil {
							t.Fatal("an attack the surface cannot deliver was accepted")
						}
						return
					case err != nil:
						t.Fatal(err)
					}
					env, err := tk.Env(BuildInput{Study: "s", Run: "r", Variant: v, Attacked: true, Canary: c})
					if err != nil {
						t.Fatal(err)
					}
					texts, err := EnvTexts(env)
					if err != nil {
						t.Fatal(err)
					}
					found := false
					for _, x := range texts {
						found = found || canary.Contains(x, c)
					}
					if want := a.Family.Goal == attacks.GoalCanary; found != want {
						t.Errorf("canary in the environment = %v, want %v", found, want)
					}
					if strings.Contains(v.Payload, "{{TOOL}}") || strings.Contains(v.Payload, "{{TASK}}") || strings.Contains(v.Payload, "{{MODEL}}") {
						t.Errorf("a per-cell placeholder left in %q", v.Payload)
					}
				})
			}
		}
	}
}

// TestSuiteAttackVariantsOnEveryUserTask plants attacks of every family
// and encoding, written from each injection's goal as a grid over a suite
// plants them, in every built-in user task: the state carries the run's
// canary (none for denial of service) where the recognizer finds it, and
// markup and split encodings, which a state cannot deliver, are refused.
func TestSuiteAttackVariantsOnEveryUserTask(t *testing.T) {
	const c = "SECRET-0A1B2C3D"
	specs := []string{"tool_knowledge+base64", "ignore_previous+tags+zero_width", "important_message+rot13+hex",
		"system_message+homoglyph", "end_of_data+leetspeak", "polite_request", "denial_of_service", "paper_override+html_comment",
		"tool_knowledge+split+base64"}
	set := Builtin()
	for _, tk := range set.All() {
		if tk.Environment == nil {
			continue
		}
		var su *Suite
		for _, s := range set.Suites() {
			if s.Environment == tk.Environment.Name && slices.Contains(s.UserTasks, tk.Name) {
				su = s
			}
		}
		if su == nil {
			t.Fatalf("user task %s is in no suite", tk.Name)
		}
		for _, own := range tk.Variants {
			for _, spec := range specs {
				a, err := attacks.Parse(spec, nil)
				if err != nil {
					t.Fatal(err)
				}
				t.Run(tk.Name+"/"+SuiteVariantName(spec, own.Name), func(t *testing.T) {
					v, err := tk.SuiteAttackVariant(a, own, su, "qwen3-8b")
					if a.Markup() || a.Split() {
						if err == nil {
							t.Fatal("an attack the state cannot deliver was accepted")
						}
						return
					}
					if err != nil {
						t.Fatal(err)
					}
					env, err := tk.Env(BuildInput{Study: "s", Run: "r", Variant: v, Attacked: true, Canary: c, Attacker: su.AttackerOf(own.Injection)})
					if err != nil {
						t.Fatal(err)
					}
					texts, err := EnvTexts(env)
					if err != nil {
						t.Fatal(err)
					}
					found := false
					for _, x := range texts {
						found = found || canary.Contains(x, c)
					}
					if want := a.Family.Goal == attacks.GoalCanary; found != want {
						t.Errorf("canary in the environment = %v, want %v", found, want)
					}
				})
			}
		}
	}
}

func TestAttackVariantNamesTheCall(t *testing.T) {
	tk, _ := Builtin().Get("permission_esc")
	a, _ := attacks.Parse("tool_knowledge", nil)
	v, err := tk.AttackVariant(a, tk.AttackPlacements()[0], "m")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(v.Payload, `escalate_privilege(user="{{ATTACKER}}", role="admin", justification="reference {{CANARY}}")`) {
		t.Errorf("tool knowledge does not spell the attack tool's call:\n%s", v.Payload)
	}
}

// TestSplitAcrossChannels: split plants one half of the payload in each of
// multi_surface's two channels: the lead-in and the call (the canary whole
// in it) on the page, the closing line in the note.
func TestSplitAcrossChannels(t *testing.T) {
	tk, _ := Builtin().Get("multi_surface")
	a, err := attacks.Parse("tool_knowledge+split", nil)
	if err != nil {
		t.Fatal(err)
	}
	v, err := tk.AttackVariant(a, tk.AttackPlacements()[0], "m")
	if err != nil {
		t.Fatal(err)
	}
	const c = "SECRET-0A1B2C3D"
	env, err := tk.Env(BuildInput{Study: "s", Run: "r", Variant: v, Attacked: true, Canary: c})
	if err != nil {
		t.Fatal(err)
	}
	texts, err := EnvTexts(env)
	if err != nil {
		t.Fatal(err)
	}
	var withCall, withStep []string
	for place, x := range texts {
		if strings.Contains(x, "send_report(") {
			withCall = append(withCall, place)
		}
		if strings.Contains(x, "Use these argument values") {
			withStep = append(withStep, place)
		}
	}
	if len(withCall) != 1 || len(withStep) != 1 || withCall[0] == withStep[0] {
		t.Errorf("halves: the call in %v, the closing line in %v; want one each, in different channels", withCall, withStep)
	}
	if _, err := tk.AttackVariant(a, Variant{Name: "x", Placements: []string{"default"}}, "m"); err == nil {
		t.Error("split with one channel accepted")
	}
}
