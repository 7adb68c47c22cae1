package report

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// rawRuns reads a fixture's runs.jsonl without the results package: generic
// JSON objects, the last line of each run id winning.
func rawRuns(t *testing.T, name string) []map[string]any {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", name, "runs.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	byID := map[string]map[string]any{}
	var order []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if strings.TrimSpace(sc.Text()) == "" {
			continue
		}
		var m map[string]any
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatal(err)
		}
		id := m["run_id"].(string)
		if _, ok := byID[id]; !ok {
			order = append(order, id)
		}
		byID[id] = m
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	var out []map[string]any
	for _, id := range order {
		out = append(out, byID[id])
	}
	return out
}

func truth(m map[string]any, k string) bool { b, _ := m[k].(bool); return b }
func str(m map[string]any, k string) string { s, _ := m[k].(string); return s }

func label(m map[string]any) string {
	if b := str(m, "model_b"); b != "" {
		return str(m, "model_a") + "→" + b
	}
	return str(m, "model_a")
}

// tally counts named events per row key.
type tally map[string]map[string]int

func (t tally) inc(key, what string, b bool) {
	if t[key] == nil {
		t[key] = map[string]int{}
	}
	t[key][what] += 0
	if b {
		t[key][what]++
	}
}

// TestRecountASR recounts the attack and clean columns of asr_by_model.csv
// straight from the fixture, both ASR denominators included.
func TestRecountASR(t *testing.T) {
	for _, name := range fixtures {
		t.Run(name, func(t *testing.T) {
			want := tally{}
			for _, m := range rawRuns(t, name) {
				errored := str(m, "error") != ""
				if truth(m, "attacked") {
					key := label(m) + "|" + str(m, "condition") + "|" + str(m, "defense")
					want.inc(key, "attacked_errors", errored)
					if errored {
						continue
					}
					// attacked_n is the ASR's denominator: the attacked runs
					// where Executed applies.
					want.inc(key, "attacked_n", m["executed"] != nil)
					want.inc(key, "executed_k", truth(m, "executed"))
					want.inc(key, "attack_goal_k", truth(m, "attack_goal"))
					want.inc(key, "no_tool_call", truth(m, "no_tool_call"))
					called := !truth(m, "no_tool_call")
					want.inc(key, "called_n", called && m["executed"] != nil)
					want.inc(key, "called_executed_k", called && truth(m, "executed"))
				}
			}
			clean := tally{}
			for _, m := range rawRuns(t, name) {
				if truth(m, "attacked") {
					continue
				}
				key := label(m) + "|" + str(m, "defense")
				errored := str(m, "error") != ""
				clean.inc(key, "clean_errors", errored)
				if errored {
					continue
				}
				clean.inc(key, "clean_n", true)
				clean.inc(key, "task_success_k", truth(m, "task_success"))
				clean.inc(key, "clean_contaminated", truth(m, "contaminated"))
			}

			dir := writeFixture(t, name)
			rows := readCSV(t, filepath.Join(dir, "report", ASRFile))
			seen := map[string]bool{}
			for _, row := range rows {
				key := row["model"] + "|" + row["condition"] + "|" + row["defense"]
				if row["condition"] != "" {
					seen[key] = true
					for what, n := range want[key] {
						if row[what] != strconv.Itoa(n) {
							t.Errorf("%s %s = %s, recounted %d", key, what, row[what], n)
						}
					}
				}
				ckey := row["model"] + "|" + row["defense"]
				for what, n := range clean[ckey] {
					if row[what] != strconv.Itoa(n) {
						t.Errorf("%s %s = %s, recounted %d", ckey, what, row[what], n)
					}
				}
			}
			for key := range want {
				if !seen[key] {
					t.Errorf("no row for attacked group %s", key)
				}
			}
		})
	}
}

// TestRecountStages recounts stages.csv, noticed.csv and goal_vs_executed.csv
// from the fixture; a null flag is n/a (empty k and n in the CSV).
func TestRecountStages(t *testing.T) {
	for _, name := range fixtures {
		t.Run(name, func(t *testing.T) {
			stages, goals, noticed := tally{}, tally{}, tally{}
			for _, m := range rawRuns(t, name) {
				if !truth(m, "attacked") || str(m, "error") != "" {
					continue
				}
				cd := str(m, "condition") + "|" + str(m, "defense")
				key := str(m, "task") + "|" + label(m) + "|" + cd
				stages.inc(key, "n", true)
				for _, s := range []string{"exposed", "persisted", "relayed", "executed"} {
					if m[s] != nil {
						stages.inc(key, s+"_n", true)
						stages.inc(key, s+"_k", truth(m, s))
					}
				}
				exec, goal := truth(m, "executed"), truth(m, "attack_goal")
				// A run where Executed does not apply (null: an injection
				// whose effect carries no free text) is in no Executed
				// denominator, and never a goal without Executed.
				applies := m["executed"] != nil
				called := !truth(m, "no_tool_call")
				stages.inc(key, "called_n", called && applies)
				stages.inc(key, "called_executed_k", called && exec)
				goals.inc(key, "both_k", exec && goal)
				goals.inc(key, "goal_not_executed", goal && !exec && applies)
				goals.inc(key, "executed_not_goal", exec && !goal)
				nkey := label(m) + "|" + cd
				noticed.inc(nkey, "n", true)
				noticed.inc(nkey, "noticed_thinking", truth(m, "noticed_thinking"))
				noticed.inc(nkey, "noticed_narration", truth(m, "noticed_narration"))
				noticed.inc(nkey, "noticed_not_executed", truth(m, "noticed") && !exec)
			}

			dir := writeFixture(t, name)
			check := func(file string, want tally, keyOf func(map[string]string) string) {
				rows := readCSV(t, filepath.Join(dir, "report", file))
				if len(rows) != len(want) {
					t.Errorf("%s: %d rows, recounted %d groups", file, len(rows), len(want))
				}
				for _, row := range rows {
					key := keyOf(row)
					if want[key] == nil {
						t.Errorf("%s: unexpected row %s", file, key)
						continue
					}
					for col, v := range row {
						if !strings.HasSuffix(col, "_n") || col == "n" {
							continue
						}
						// A stage column with no counted runs must be n/a.
						if _, ok := want[key][col]; !ok && v != "" && file == StagesFile {
							t.Errorf("%s %s %s = %q, want n/a", file, key, col, v)
						}
					}
					for what, n := range want[key] {
						if row[what] != strconv.Itoa(n) {
							t.Errorf("%s %s %s = %q, recounted %d", file, key, what, row[what], n)
						}
					}
				}
			}
			byTask := func(r map[string]string) string {
				return r["task"] + "|" + r["model"] + "|" + r["condition"] + "|" + r["defense"]
			}
			check(StagesFile, stages, byTask)
			check(GoalFile, goals, byTask)
			check(NoticedFile, noticed, func(r map[string]string) string {
				return r["model"] + "|" + r["condition"] + "|" + r["defense"]
			})
		})
	}
}
