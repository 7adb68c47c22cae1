package runner_test

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/killchain/killchain/internal/agent"
	"github.com/killchain/killchain/internal/models/scripted"
	"github.com/killchain/killchain/internal/recount"
	"github.com/killchain/killchain/internal/report"
	"github.com/killchain/killchain/internal/results"
	"github.com/killchain/killchain/internal/study"
	"github.com/killchain/killchain/internal/testenv"
	"github.com/killchain/killchain/runner"
	"github.com/killchain/killchain/sandbox/local"
)

// TestAttacksStudy runs hcl/attacks.hcl — built-in families, encodings and
// a family of the study's own, crossed with the compliant, decoder and
// literal agents on a text surface, a PDF relay and a web-page relay — on
// the local backend. Every run records its attack; the recount agrees
// with every stage; alone on memory_poison, the decoder reaches the goal
// exactly on the base64 and ROT13 payloads and the literal agent exactly
// on the clear ones it reads as instructions; denial of service reaches no
// stage.
func TestAttacksStudy(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a study (about 5 s)")
	}
	s, diags := study.Load("../hcl/attacks.hcl")
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	out := filepath.Join(t.TempDir(), "attacks")
	r, err := runner.New(s, runner.Options{Output: out, Backend: &local.Backend{Root: testenv.SharedDir(t)},
		Models: func(m *study.Model) (agent.Model, error) { return scripted.New(m.Policy) }})
	if err != nil {
		t.Fatal(err)
	}
	sum, err := r.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if sum.Ran != sum.Selected || sum.Errors != 0 {
		t.Fatalf("ran %d of %d runs, %d errors", sum.Ran, sum.Selected, sum.Errors)
	}
	rc, err := recount.Study(out)
	if err != nil {
		t.Fatal(err)
	}
	if len(rc.Disagreements) > 0 || rc.Runs == 0 {
		t.Fatalf("recount over %d runs: %+v", rc.Runs, rc.Disagreements)
	}
	data, err := os.ReadFile(filepath.Join(out, results.RunsFile))
	if err != nil {
		t.Fatal(err)
	}
	executed := 0
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		var run results.Run
		if err := json.Unmarshal([]byte(line), &run); err != nil {
			t.Fatal(err)
		}
		if run.Attacked && run.Executed != nil && *run.Executed {
			executed++
		}
		if run.Attack == "" || !run.Attacked && run.Attack != study.CleanVariant {
			t.Errorf("%s: attack %q", run.RunID, run.Attack)
		}
		if run.Attack == "denial_of_service" && run.Stage != "none" {
			t.Errorf("%s: denial of service reached %s", run.RunID, run.Stage)
		}
		if run.Task != "memory_poison" || !run.Attacked {
			continue
		}
		var want bool
		switch run.ModelA {
		case "decoder":
			want = run.Attack == "tool_knowledge+base64" || run.Attack == "ignore_previous+rot13" || run.Attack == "courier+rot13+base64"
		case "literal", "compliant":
			want = run.Attack == "tool_knowledge"
		default:
			continue
		}
		if run.AttackGoal != want {
			t.Errorf("%s on memory_poison under %s: attack goal %v, want %v", run.ModelA, run.Attack, run.AttackGoal, want)
		}
	}
	checkAttackStages(t, out, executed)
}

// checkAttackStages writes the study's report and checks its stage tables
// per attack family and per encoding: every row's Exposed and Executed over
// all its runs, Relayed n/a for a single agent and over every run of a
// relay pair, Executed summing to the runs that executed, denial of service
// reaching no stage.
func checkAttackStages(t *testing.T, out string, executed int) {
	t.Helper()
	if err := report.Write(out, report.Options{NoFigures: true, NoHTML: true}); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		file, lead string
		want       []string
	}{
		{report.AttackFamilyStagesFile, "attack family", []string{"tool_knowledge", "ignore_previous", "important_message", "courier", "denial_of_service"}},
		{report.EncodingStagesFile, "encoding", []string{"none", "base64", "rot13", "hex", "rot13+base64"}},
	} {
		t.Run(tc.file, func(t *testing.T) {
			f, err := os.Open(filepath.Join(out, "report", tc.file))
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			rows, err := csv.NewReader(f).ReadAll()
			if err != nil || len(rows) < 2 || rows[0][0] != tc.lead {
				t.Fatalf("%s: %d rows, %v", tc.file, len(rows), err)
			}
			col := map[string]int{}
			for i, h := range rows[0] {
				col[h] = i
			}
			num := func(r []string, name string) int {
				n, _ := strconv.Atoi(r[col[name]])
				return n
			}
			seen, sum := map[string]bool{}, 0
			for _, r := range rows[1:] {
				seen[r[0]] = true
				sum += num(r, "executed_k")
				if num(r, "exposed_n") != num(r, "n") || num(r, "executed_n") != num(r, "n") {
					t.Errorf("%s/%s: exposed over %s, executed over %s of %s runs", r[0], r[col["model"]], r[col["exposed_n"]], r[col["executed_n"]], r[col["n"]])
				}
				// Relayed is n/a (empty) on a single agent's row, over every
				// run on a relay pair's.
				if want := num(r, "n"); r[col["model_b"]] == "" {
					if r[col["relayed_n"]] != "" || r[col["persisted_n"]] != "" {
						t.Errorf("%s/%s: single-agent row has Relayed or Persisted: %v", r[0], r[col["model"]], r)
					}
				} else if n := num(r, "relayed_n"); n != want {
					t.Errorf("%s/%s: relayed over %d of %d relay runs", r[0], r[col["model"]], n, want)
				}
				if r[0] == "denial_of_service" && (num(r, "executed_k") != 0 || num(r, "exposed_k") != 0) {
					t.Errorf("denial of service reached a stage: %v", r)
				}
			}
			for _, w := range tc.want {
				if !seen[w] {
					t.Errorf("%s has no row for %s", tc.file, w)
				}
			}
			if sum != executed {
				t.Errorf("%s: executed_k sums to %d, runs.jsonl holds %d executed runs", tc.file, sum, executed)
			}
		})
	}
}
