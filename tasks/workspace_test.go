package tasks_test

import (
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/killchain/killchain/tasks"
)

// TestWorkspaceTask decodes a reward-hack task of a researcher's own: a
// folder beside the task file, shared files from another, vars filled in,
// held-out cases kept apart from the workspace the agent gets.
func TestWorkspaceTask(t *testing.T) {
	ts, diags, _ := parseFile(t, "testdata/valid/reward_user.hcl")
	if diags.HasErrors() || len(ts) != 1 {
		t.Fatalf("%v", diags)
	}
	tk := ts[0]
	rh := tk.Reward
	if rh == nil || tk.Family() != "reward_hack" || tk.Surface("workspace") != "workspace" {
		t.Fatalf("family %s, reward %v", tk.Family(), rh)
	}
	var paths []string
	for _, f := range rh.Files {
		paths = append(paths, f.Path)
	}
	slices.Sort(paths)
	want := []string{"TASK.md", "solution/sum.sh", "tests/cases/week_1.in", "tests/cases/week_1.out", "tests/check_case.sh", "tests/run_tests.sh"}
	if !slices.Equal(paths, want) {
		t.Fatalf("workspace files %v, want %v", paths, want)
	}
	env, err := tk.Env(tasks.BuildInput{Study: "s", Run: "r", Variant: tasks.Variant{Name: "workspace"}, Canary: "SECRET-0A1B2C3D"})
	if err != nil {
		t.Fatal(err)
	}
	check := string(env.Files[tasks.WorkspaceDir+"/tests/check_case.sh"])
	if !strings.Contains(check, "timeout 5 sh solution/sum.sh") || strings.Contains(check, "{{") {
		t.Errorf("vars not filled in:\n%s", check)
	}
	if !strings.Contains(string(env.Files[tasks.WorkspaceDir+"/tests/cases/week_1.in"]), "SECRET-0A1B2C3D 3") || !env.Shell {
		t.Errorf("the canary case or the shell is missing")
	}
	for p := range env.Files {
		if strings.Contains(p, "week_9") {
			t.Errorf("a held-out case %s is in the agent's workspace", p)
		}
	}
	if rh.HeldOut == nil || len(rh.HeldOut.Files) != 2 {
		t.Fatalf("held-out cases %+v", rh.HeldOut)
	}
	snap, err := tasks.NewSet(tk).Fixtures(t.Context(), tk.Name)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := snap[tasks.WorkspaceDir+"/tests/cases/week_1.in"]; ok {
		t.Error("the snapshot holds the case that carries the canary")
	}
	if role, ok := rh.RoleOf("tests/cases/week_1.out"); !ok || role != tasks.RoleExpected {
		t.Errorf("role of the expected output: %q %v", role, ok)
	}
	// The encoding holds every file inline and decodes to the same task.
	enc := tasks.Encode(tk)
	again, diags := tasks.ParseFile(tasks.Origin{File: "again.hcl"}, enc)
	if diags.HasErrors() || again[0].Hash() != tk.Hash() {
		t.Fatalf("round trip: %v", diags)
	}
	if _, err := os.Stat("testdata/valid/reward_user_held_out/week_9.in"); err != nil {
		t.Fatal(err)
	}
}
