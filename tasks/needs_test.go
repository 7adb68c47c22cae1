package tasks

import (
	"slices"
	"testing"

	"github.com/killchain/killchain/sandbox"
)

func TestNeeds(t *testing.T) {
	want := map[string][]sandbox.Capability{"audio_inject": {sandbox.Audio}}
	for _, name := range injectionNames() {
		t.Run(name, func(t *testing.T) {
			tk, _ := builtinGet(name)
			if got := tk.Needs(); !slices.Equal(got, want[name]) {
				t.Errorf("Needs() = %v, want %v", got, want[name])
			}
		})
	}
}

// TestNeedsCoversTheEnvironment builds every task's clean and attacked
// environments: one that carries speech clips must need audio, so that no
// backend without it is handed one.
func TestNeedsCoversTheEnvironment(t *testing.T) {
	for _, name := range injectionNames() {
		tk, _ := builtinGet(name)
		for _, v := range append([]string{"none"}, tk.VariantNames()...) {
			t.Run(name+"/"+v, func(t *testing.T) {
				in := BuildInput{Study: "s", Run: "r1", Variant: Variant{Name: v}}
				if v != "none" {
					in.Attacked, in.Canary = true, testCanary
				}
				env, err := tk.Env(in)
				if err != nil {
					t.Fatal(err)
				}
				if len(env.Speech) > 0 && !slices.Contains(tk.Needs(), sandbox.Audio) {
					t.Errorf("environment has %d speech clips, but Needs() = %v", len(env.Speech), tk.Needs())
				}
			})
		}
	}
}
