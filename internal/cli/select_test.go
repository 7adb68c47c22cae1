package cli

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/killchain/killchain/internal/results"
	"github.com/killchain/killchain/internal/study"
	"github.com/killchain/killchain/runner"
)

const smokeFile = "../../hcl/smoke.hcl"

// recorded reads a study folder's runs.jsonl by run id, failing on a run
// recorded twice.
func recorded(t *testing.T, dir string) map[string]results.Run {
	t.Helper()
	out := map[string]results.Run{}
	err := results.ReadRuns(filepath.Join(dir, results.RunsFile), func(r results.Run) error {
		if _, dup := out[r.RunID]; dup {
			t.Errorf("run %s recorded twice", r.RunID)
		}
		out[r.RunID] = r
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// planOf loads and plans a study file.
func planOf(t *testing.T, file string) (*study.Study, []study.Run) {
	t.Helper()
	s, diags := study.Load(file)
	if diags.HasErrors() {
		t.Fatalf("%s: %v", file, diags)
	}
	plan, err := s.Plan()
	if err != nil {
		t.Fatal(err)
	}
	return s, plan
}

// withoutAudio writes hcl/smoke.hcl less audio_inject (which the local
// backend cannot run): the same study, name and seed, so every other run
// keeps its id.
func withoutAudio(t *testing.T) string {
	t.Helper()
	src, err := os.ReadFile(smokeFile)
	if err != nil {
		t.Fatal(err)
	}
	text := regexp.MustCompile(`(?s)grid "(defenses_audio|narrate_audio)" \{.*?\n\}\n`).ReplaceAllString(string(src), "")
	text = strings.ReplaceAll(text, `"audio_inject", `, "")
	if strings.Contains(text, `"audio_inject"`) {
		t.Fatal("smoke.hcl changed: cannot strip audio_inject from it")
	}
	return writeStudy(t, text)
}

// TestRunSubsetThenResume is the check: run --tasks
// memory_poison,tool_poison --sample 40 on hcl/smoke.hcl runs only those
// tasks and at most 40 runs, with the full study's run ids and every
// task/condition/defense of the two tasks represented; a later --resume
// into the same folder completes the study without running them again.
func TestRunSubsetThenResume(t *testing.T) {
	_, smokePlan := planOf(t, smokeFile)
	smokeIDs := map[string]study.Run{}
	for _, r := range smokePlan {
		smokeIDs[r.RunID] = r
	}
	subset := []string{"--tasks", "memory_poison,tool_poison", "--sample", "40"}
	two := study.Selection{Tasks: []string{"memory_poison", "tool_poison"}}.Filter(smokePlan)

	// checkSubset checks a folder holding the subset alone.
	checkSubset := func(t *testing.T, dir string) map[string]results.Run {
		t.Helper()
		got := recorded(t, dir)
		if len(got) == 0 || len(got) > 40 {
			t.Fatalf("subset recorded %d runs, want 1 to 40", len(got))
		}
		strata := map[string]bool{}
		for id, r := range got {
			pr, ok := smokeIDs[id]
			switch {
			case !ok:
				t.Errorf("run %s is not a run of the full study", id)
			case r.Task != "memory_poison" && r.Task != "tool_poison":
				t.Errorf("run %s is of task %s", id, r.Task)
			case r.Error != "":
				t.Errorf("run %s: %s", id, r.Error)
			default:
				strata[study.Stratum(pr)] = true
			}
		}
		if len(strata) != study.Strata(two) {
			t.Errorf("subset covers %d of the %d task/condition/defense strata", len(strata), study.Strata(two))
		}
		m, err := runner.ReadManifest(dir)
		if err != nil {
			t.Fatal(err)
		}
		if m.Selection == nil || m.Selection.Args != "--tasks memory_poison,tool_poison --sample 40 --sample-seed 42" ||
			m.Selection.Selected != len(got) {
			t.Errorf("manifest selection %+v", m.Selection)
		}
		return got
	}

	t.Run("smoke.hcl on local", func(t *testing.T) {
		out := filepath.Join(t.TempDir(), "out")
		code, stdout, stderr := killchain(append([]string{"run", "-q", "--sandbox", "local", "--output", out}, append(subset, smokeFile)...)...)
		if code != 0 {
			t.Fatalf("subset: exit %d\n%s%s", code, stdout, stderr)
		}
		if want := "40 of 390 planned runs selected"; !strings.Contains(stdout, want) {
			t.Errorf("stdout %q lacks %q", stdout, want)
		}
		first := checkSubset(t, out)

		// The full smoke study holds audio_inject, which local cannot run:
		// its resume is refused, naming the way out, and writes nothing.
		code, _, stderr = killchain("run", "-q", "--sandbox", "local", "--resume", "--output", out, smokeFile)
		if code == 0 || !strings.Contains(stderr, "audio_inject needs audio") || !strings.Contains(stderr, "--tasks") {
			t.Errorf("full resume on local: exit %d\n%s", code, stderr)
		}
		if after := recorded(t, out); len(after) != len(first) {
			t.Errorf("refused resume changed runs.jsonl: %d runs, was %d", len(after), len(first))
		}
	})

	t.Run("subset, another subset, then the full study", func(t *testing.T) {
		file := withoutAudio(t)
		_, plan := planOf(t, file)
		out := filepath.Join(t.TempDir(), "out")
		code, stdout, stderr := killchain(append([]string{"run", "-q", "--sandbox", "local", "--output", out}, append(subset, file)...)...)
		if code != 0 {
			t.Fatalf("subset: exit %d\n%s%s", code, stdout, stderr)
		}
		first := checkSubset(t, out)

		// Another subset, overlapping the first, resumed into the folder.
		code, stdout, stderr = killchain("run", "-q", "--sandbox", "local", "--resume", "--output", out,
			"--models", "resistant", "--conditions", "plain,hack", file)
		if code != 0 {
			t.Fatalf("second subset: exit %d\n%s%s", code, stdout, stderr)
		}
		second := recorded(t, out)

		// The full study: everything not yet run, and nothing twice. Its
		// reward-hack tasks run shell commands, on this host only with the
		// opt-in.
		code, stdout, stderr = killchain("run", "-q", "--sandbox", "local", "--allow-host-shell", "--resume", "--output", out, file)
		if code != 0 {
			t.Fatalf("full resume: exit %d\n%s%s", code, stdout, stderr)
		}
		want := "already finished, " + strconv.Itoa(len(plan)-len(second)) + " ran, 0 errors"
		if !strings.Contains(stdout, strconv.Itoa(len(plan))+" planned, "+strconv.Itoa(len(second))+" "+want) {
			t.Errorf("full resume said %q, want %d planned, %d %s", stdout, len(plan), len(second), want)
		}
		all := recorded(t, out)
		if len(all) != len(plan) {
			t.Errorf("folder holds %d runs, want the full plan's %d", len(all), len(plan))
		}
		for _, r := range plan {
			if _, ok := all[r.RunID]; !ok {
				t.Errorf("run %s of the full plan is missing", r.RunID)
			}
		}
		for id, r := range first {
			if all[id].Canary != r.Canary || all[id].DurationMS != r.DurationMS {
				t.Errorf("subset run %s was run again", id)
			}
		}
		m, err := runner.ReadManifest(out)
		if err != nil {
			t.Fatal(err)
		}
		if m.Selection != nil || m.Planned != len(plan) || len(m.Resumed) != 2 {
			t.Errorf("manifest after the full resume: selection %+v, planned %d, resumed %v", m.Selection, m.Planned, m.Resumed)
		}
	})
}

// TestPlanSubset prints the subset's totals after how many runs of the
// full plan it keeps, and names unknown names with the valid ones.
func TestPlanSubset(t *testing.T) {
	tests := []struct {
		name   string
		args   []string
		code   int
		stdout []string
		stderr []string
	}{
		{name: "tasks and sample", args: []string{"--tasks", "memory_poison", "--tasks", "tool_poison", "--sample", "40", "--runs"}, stdout: []string{
			"selection --tasks memory_poison,tool_poison --sample 40 --sample-seed 42: 40 of the study's 390 runs",
			"total         40 runs", "memory_poison-", "tool_poison-"}},
		{name: "subset without audio on local", args: []string{"--sandbox", "local", "--grids", "agents_relay,narrate_relay"},
			stdout: []string{"84 of the study's 390 runs"}},
		{name: "sample below the strata", args: []string{"--sample", "3", "--sample-seed", "1"},
			stdout: []string{"total         3 runs"}, stderr: []string{"--sample 3 is below the 81 strata", "round-robin"}},
		{name: "unknown names", args: []string{"--tasks", "tool_poisn", "--defenses", "spotlight"}, code: 1, stderr: []string{
			`did you mean "tool_poison"?`, `did you mean "spotlighting"?`, "its grids use: none, write_filter"}},
		{name: "sample seed without a sample", args: []string{"--sample-seed", "3"}, code: 1,
			stderr: []string{"--sample-seed seeds --sample, which is not set"}},
		{name: "keeps nothing", args: []string{"--grids", "narrate_relay", "--conditions", "plain"}, code: 1,
			stderr: []string{"keeps none of the study's 390 runs"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, stdout, stderr := killchain(append(append([]string{"plan"}, tt.args...), smokeFile)...)
			if code != tt.code {
				t.Fatalf("exit %d, want %d\n%s%s", code, tt.code, stdout, stderr)
			}
			for _, w := range tt.stdout {
				if !strings.Contains(stdout, w) {
					t.Errorf("stdout lacks %q:\n%s", w, stdout)
				}
			}
			for _, w := range tt.stderr {
				if !strings.Contains(stderr, w) {
					t.Errorf("stderr lacks %q:\n%s", w, stderr)
				}
			}
			if tt.code == 0 && !slices.Contains(strings.Fields(stdout), "total") {
				t.Errorf("no plan printed:\n%s", stdout)
			}
		})
	}
}
