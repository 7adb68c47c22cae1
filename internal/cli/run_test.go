package cli

import (
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/killchain/killchain/internal/results"
	"github.com/killchain/killchain/internal/study"
)

// TestMaxRetriesZeroMeansNoRetry: a model block's max_retries = 0 makes
// one attempt; before the fix the driver read 0 as its default of four
// retries.
func TestMaxRetriesZeroMeansNoRetry(t *testing.T) {
	tests := []struct {
		name  string
		attr  string
		posts int64
	}{
		{"zero", "max_retries = 0", 1},
		{"one", "max_retries = 1", 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var posts atomic.Int64
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "application/json")
				if r.Method == http.MethodGet { // doctor's GET /models
					w.Write([]byte(`{"object":"list","data":[{"id":"q","object":"model"}]}`))
					return
				}
				posts.Add(1)
				w.Header().Set("Retry-After", "0")
				w.WriteHeader(http.StatusInternalServerError)
				w.Write([]byte(`{"error":{"message":"boom","type":"server_error","param":null,"code":null}}`))
			}))
			defer srv.Close()
			file := writeStudy(t, `
study "retries" {
  seed     = 1
  sandbox  = "local"
  attempts = 1 # the driver's retries only, not the study's
}
model "m" {
  provider = "openai_compatible"
  name     = "q"
  base_url = "`+srv.URL+`/v1"
  `+tt.attr+`
}
grid "g" {
  tasks      = ["memory_poison"]
  models     = ["m"]
  conditions = ["plain"]
}
`)
			code, stdout, stderr := killchain("run", "-q", "--output", filepath.Join(t.TempDir(), "out"), file)
			if code != 0 || !strings.Contains(stdout, "1 ran, 1 error →") {
				t.Fatalf("run exit %d\n%s%s", code, stdout, stderr)
			}
			if got := posts.Load(); got != tt.posts {
				t.Errorf("server saw %d calls, want %d", got, tt.posts)
			}
		})
	}
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
		m, err := results.ReadManifest(dir)
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
		m, err := results.ReadManifest(out)
		if err != nil {
			t.Fatal(err)
		}
		if m.Selection != nil || m.Planned != len(plan) || len(m.Resumed) != 2 {
			t.Errorf("manifest after the full resume: selection %+v, planned %d, resumed %v", m.Selection, m.Planned, m.Resumed)
		}
	})
}
