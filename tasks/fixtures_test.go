package tasks

import (
	"context"
	"reflect"
	"testing"
)

func TestCleanEnvNeedsNoVariant(t *testing.T) {
	for _, name := range injectionNames() {
		t.Run(name, func(t *testing.T) {
			task, _ := builtinGet(name)
			first, err := task.Env(BuildInput{Study: "s", Run: "r", Variant: task.Variants[0]})
			if err != nil {
				t.Fatal(err)
			}
			for _, v := range []string{"", "none"} {
				env, err := task.Env(BuildInput{Study: "s", Run: "r", Variant: Variant{Name: v}})
				if err != nil {
					t.Fatalf("variant %q: %v", v, err)
				}
				if !reflect.DeepEqual(env, first) {
					t.Errorf("variant %q builds another clean environment", v)
				}
			}
			if _, err := task.Env(BuildInput{Study: "s", Run: "r", Variant: Variant{Name: "none"}, Attacked: true, Canary: "SECRET-0A1B2C3D"}); err == nil {
				t.Error("an attacked run with variant none built")
			}
			files, err := Builtin().Fixtures(context.Background(), name)
			if err != nil || !reflect.DeepEqual(files, first.Files) {
				t.Errorf("Fixtures: %v (equal %v)", err, reflect.DeepEqual(files, first.Files))
			}
		})
	}
	if _, err := Builtin().Fixtures(context.Background(), "nope"); err == nil {
		t.Error("Fixtures of an unknown task")
	}
}
