package study

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/killchain/killchain/tasks"
)

// taskStudy is a study file at testdata/tasks/study.hcl with the given
// task_files and extra blocks, running task in one grid.
func taskStudy(files, extra, task string) string {
	tf := ""
	if files != "" {
		tf = "  task_files = [" + files + "]\n"
	}
	return "study \"t\" {\n" + tf + "}\n" +
		"model \"a\" {\n  provider = \"scripted\"\n  policy   = \"compliant\"\n}\n" + extra +
		"grid \"g\" {\n  tasks      = [\"" + task + "\"]\n  models     = [\"a\"]\n  conditions = [\"plain\", \"hack\"]\n}\n"
}

// taskFolder lays out task files for the study tests: ok/minimal.hcl, the
// same file twice in dup/, and the built-in memory_poison's file in shadow/.
func taskFolder(t *testing.T) (dir string, minimal, builtin []byte) {
	t.Helper()
	minimal, err := os.ReadFile("../../tasks/testdata/valid/minimal.hcl")
	if err != nil {
		t.Fatal(err)
	}
	mp, _ := tasks.Builtin().Get("memory_poison")
	dir = t.TempDir()
	for name, data := range map[string][]byte{"ok/minimal.hcl": minimal, "dup/a.hcl": minimal, "dup/b.hcl": minimal, "shadow/same.hcl": mp.Source.Text} {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir, minimal, mp.Source.Text
}

func TestStudyTasks(t *testing.T) {
	dir, minimal, builtin := taskFolder(t)
	changed := strings.Replace(string(builtin), "Calder Street footbridge work", "Calder Street bridge work", 1)
	broken, err := filepath.Abs("../../tasks/testdata/invalid/unknown_tool.hcl")
	if err != nil {
		t.Fatal(err)
	}
	overridden := strings.Replace(changed, `task "memory_poison" {`, "task \"memory_poison\" {\n  override = true", 1)
	cases := []struct {
		name string
		src  string
		want []string // diagnostic keys; nil: valid
		own  []string
	}{
		{name: "a task file", src: taskStudy(`"ok/*.hcl"`, "", "minimal"), own: []string{"minimal"}},
		{name: "a task block in the study", src: taskStudy("", string(minimal), "minimal"), own: []string{"minimal"}},
		{name: "a built-in copied as it is needs no override", src: taskStudy(`"shadow/same.hcl"`, "", "memory_poison"), own: []string{"memory_poison"}},
		{name: "a changed built-in needs override", src: taskStudy("", changed, "memory_poison"),
			want: []string{"10:6 error Built-in task shadowed"}},
		{name: "with override it runs instead", src: taskStudy("", overridden, "memory_poison"), own: []string{"memory_poison"}},
		{name: "override of no built-in", src: taskStudy("", strings.Replace(string(minimal), "task \"minimal\" {", "task \"minimal\" {\n  override = true", 1), "minimal"),
			want: []string{"8:6 warning Nothing to override"}, own: []string{"minimal"}},
		{name: "the same name twice in task files", src: taskStudy(`"dup/*.hcl"`, "", "minimal"),
			want: []string{"2:6 error Duplicate task"}},
		{name: "the same name in the study and a file", src: taskStudy(`"ok/*.hcl"`, string(minimal), "minimal"),
			want: []string{"2:6 error Duplicate task"}},
		{name: "a pattern matching nothing", src: taskStudy(`"missing/*.hcl"`, "", "minimal"),
			want: []string{"2:17 error No task files", "9:17 error Unknown task"}},
		{name: "an error in a task file", src: taskStudy(`"`+broken+`"`, "", "minimal"),
			want: []string{"10:30 error Unknown tool", "25:17 error Goal address nobody can reach", "30:15 error Goal address nobody can reach", "9:17 error Unknown task"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s, diags := Parse(filepath.Join(dir, "study.hcl"), []byte(tc.src))
			// Diagnostics sort by file name: compare them as sets.
			got := diagKeys(diags)
			slices.Sort(got)
			slices.Sort(tc.want)
			if !slices.Equal(got, tc.want) {
				t.Fatalf("diagnostics %v, want %v\n%v", got, tc.want, diags)
			}
			for _, d := range diags {
				if d.Subject == nil || d.Subject.Filename == "" {
					t.Errorf("diagnostic %q has no file", d.Summary)
				}
			}
			if s == nil {
				return
			}
			var own []string
			for _, tk := range s.Own {
				own = append(own, tk.Name)
			}
			if !slices.Equal(own, tc.own) {
				t.Errorf("own tasks %v, want %v", own, tc.own)
			}
			if len(s.Tasks.Names()) < 12 {
				t.Errorf("the study's tasks %v lack the built-ins", s.Tasks.Names())
			}
		})
	}
}

// TestPlanHashHoldsTheTasks checks that a change to a task a study runs
// changes its plan hash (so --resume refuses it), and a change to a task it
// does not run does not.
func TestPlanHashHoldsTheTasks(t *testing.T) {
	dir := t.TempDir()
	_, src, _ := taskFolder(t)
	hash := func(task string) string {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, "task.hcl"), []byte(task), 0o644); err != nil {
			t.Fatal(err)
		}
		s, diags := Parse(filepath.Join(dir, "study.hcl"), []byte(taskStudy(`"task.hcl"`, "", "minimal")))
		if diags.HasErrors() {
			t.Fatal(diags)
		}
		runs, err := s.Plan()
		if err != nil {
			t.Fatal(err)
		}
		return s.PlanHash(runs)
	}
	base := hash(string(src))
	if again := hash(string(src)); again != base {
		t.Fatalf("the same study hashes %s and %s", base, again)
	}
	reworded := strings.Replace(string(src), "booked for Tuesday", "booked for next Tuesday", 1)
	if hash(reworded) == base {
		t.Error("a changed page left the plan hash as it was")
	}
	commented := "# a comment changes nothing that runs\n" + string(src)
	if hash(commented) != base {
		t.Error("a comment changed the plan hash")
	}
}
