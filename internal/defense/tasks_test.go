package defense

import (
	"testing"

	"github.com/killchain/killchain/internal/vocab"
	"github.com/killchain/killchain/tasks"
)

// TestWriteFilterOnTasks checks the default patterns on the real task
// content: clean content passes untouched, and each attacked variant loses
// at least one payload line.
func TestWriteFilterOnTasks(t *testing.T) {
	f, err := NewWriteFilter(nil)
	if err != nil {
		t.Fatal(err)
	}
	names := tasks.Builtin().NamesOf(vocab.FamilyInjection)
	if len(names) == 0 {
		t.Fatal("no tasks registered")
	}
	for _, name := range names {
		task, _ := tasks.Builtin().Get(name)
		if task.Environment != nil {
			continue // a suite's user task: its helpful third-party instructions are meant to look like instructions
		}
		for _, v := range task.Variants {
			t.Run(name+"/"+v.Name, func(t *testing.T) {
				for _, attacked := range []bool{false, true} {
					in := tasks.BuildInput{Variant: v, Attacked: attacked}
					if attacked {
						in.Canary = "SECRET-0A1B2C3D"
					}
					env, err := task.Env(in)
					if err != nil {
						t.Fatal(err)
					}
					texts, err := tasks.EnvTexts(env)
					if err != nil {
						t.Fatal(err)
					}
					var removed []string
					for _, text := range texts {
						_, r := f.FilterWrite(text)
						removed = append(removed, r...)
					}
					if !attacked && len(removed) > 0 {
						t.Errorf("clean content lost %q", removed)
					}
					if attacked && len(removed) == 0 {
						t.Errorf("no payload line removed")
					}
				}
			})
		}
	}
}
