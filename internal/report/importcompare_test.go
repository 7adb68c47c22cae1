package report

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/killchain/killchain/internal/importer/agentbench"
	"github.com/killchain/killchain/internal/results"
)

// paperLog is the original harness's released log.
const paperLog = "../importer/agentbench/testdata/paperlog/runs.csv"

// TestImportAgentbench imports the paper's log and checks the report's
// per-model n and executed counts against a count straight from the CSV,
// and that the audit counted the harness-label contradictions.
func TestImportAgentbench(t *testing.T) {
	for _, inPaper := range []bool{false, true} {
		t.Run(fmt.Sprintf("in paper only %v", inPaper), func(t *testing.T) { testImport(t, inPaper) })
	}
}

func testImport(t *testing.T, inPaper bool) {
	dir := t.TempDir()
	if err := agentbench.Convert(context.Background(), paperLog, dir, agentbench.Options{InPaperOnly: inPaper}); err != nil {
		t.Fatal(err)
	}
	if err := Write(dir, Options{Title: "import of runs.csv (agentbench)"}); err != nil {
		t.Fatal(err)
	}
	// Recount per model_a (same-model pairs count as the model) from the CSV.
	f, err := os.Open(paperLog)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs := csvRecords(t, f)
	n, k := map[string]int{}, map[string]int{}
	for _, r := range recs {
		if r["is_attacked"] != "True" || (inPaper && r["in_paper"] != "True") {
			continue
		}
		m := r["model_a"]
		if b := r["model_b"]; b != "" && b != m {
			m += "→" + b
		}
		key := m + "|" + r["defense"]
		n[key]++
		if r["attack_succeeded"] == "True" {
			k[key]++
		}
	}
	rows := readCSV(t, filepath.Join(dir, "report", ModelsFile))
	seen := 0
	for _, row := range rows {
		key := row["model"] + "|" + row["defense"]
		if row["attacked_n"] == "0" {
			continue
		}
		seen++
		if row["attacked_n"] != strconv.Itoa(n[key]) || row["executed_k"] != strconv.Itoa(k[key]) {
			t.Errorf("%s: %s/%s, recounted %d/%d", key, row["executed_k"], row["attacked_n"], k[key], n[key])
		}
	}
	if seen == 0 {
		t.Fatal("no attacked rows in models.csv")
	}
	audit := readCSV(t, filepath.Join(dir, "report", "audit.csv"))
	harness := 0
	for _, a := range audit {
		if a["source"] == "harness labels" {
			c, _ := strconv.Atoi(a["runs"])
			harness += c
		}
	}
	if harness == 0 {
		t.Errorf("audit found no harness-label contradictions: %v", audit)
	}
	html, err := os.ReadFile(filepath.Join(dir, "report", HTMLFile))
	if err != nil || !strings.Contains(string(html), `id="audit"`) {
		t.Errorf("report.html lacks the audit: %v", err)
	}
}

func TestCompare(t *testing.T) {
	a, b := copyFixture(t, "smoke"), copyFixture(t, "simple")
	out := t.TempDir()
	if err := Compare(a, a, out, Options{}); err != nil {
		t.Fatal(err)
	}
	for _, row := range readCSV(t, filepath.Join(out, "compare.csv")) {
		if row["a_executed_k"] != row["b_executed_k"] || row["a_attacked_n"] != row["b_attacked_n"] {
			t.Errorf("self-comparison differs: %v", row)
		}
		if row["delta_pp"] != "0.0" {
			t.Errorf("self-comparison delta %q", row["delta_pp"])
		}
		if row["a_called_n"] != row["b_called_n"] || row["a_called_executed_k"] != row["b_called_executed_k"] ||
			(row["delta_called_pp"] != "0.0" && row["a_called_n"] != "0") {
			t.Errorf("self-comparison of the called denominator differs: %v", row)
		}
	}
	// smoke and simple share no attacked cell: nothing is compared, and
	// every cell is listed as left out (issue 19: models only one set held
	// were compared as if the other had no runs).
	if err := Compare(a, b, out, Options{}); err != nil {
		t.Fatal(err)
	}
	if rows := readCSV(t, filepath.Join(out, "compare.csv")); len(rows) != 0 {
		t.Errorf("compare.csv compares cells only one set holds: %v", rows)
	}
	md, err := os.ReadFile(filepath.Join(out, "compare.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"attacked cells only A holds", "attacked cells only B holds", "no attacked cell in common"} {
		if !strings.Contains(string(md), want) {
			t.Errorf("compare.md lacks %q:\n%s", want, md)
		}
	}
}

// TestCompareCommonCells compares a subset (one task) with the full study
// it came from: only the subset's cells count on both sides, the rest is
// listed as left out, and Δ carries its Newcombe interval.
func TestCompareCommonCells(t *testing.T) {
	runs := knownRuns()
	var subset []results.Run
	for i, r := range runs {
		r.Task, r.RunID = "memory_poison", "mp-"+r.RunID
		if i%2 == 0 {
			subset = append(subset, r)
		}
		runs = append(runs, r)
	}
	out := t.TempDir()
	if err := Compare(writeRuns(t, subset), writeRuns(t, runs), out, Options{}); err != nil {
		t.Fatal(err)
	}
	row := find(t, readCSV(t, filepath.Join(out, "compare.csv")), map[string]string{"model": "m1", "defense": "none"})
	if row["b_attacked_n"] != "9" {
		t.Errorf("B counts %s attacked m1 runs, want the 9 of its memory_poison cells only: %v", row["b_attacked_n"], row)
	}
	if row["delta_lo_pp"] == "" || row["delta_hi_pp"] == "" {
		t.Errorf("Δ without its Newcombe interval: %v", row)
	}
	md, err := os.ReadFile(filepath.Join(out, "compare.md"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(md), "attacked cells only B holds (tool_poison/") {
		t.Errorf("compare.md does not list the left-out cells:\n%s", md)
	}
}

// TestCompareCalledDenominator compares knownRuns with itself less the
// executed runs of m1: both denominators and their deltas follow.
func TestCompareCalledDenominator(t *testing.T) {
	runs := knownRuns()
	var fewer []results.Run
	for _, r := range runs {
		if r.ModelA == "m1" && results.Is(r.Executed) && r.Error == "" {
			continue
		}
		fewer = append(fewer, r)
	}
	out := t.TempDir()
	if err := Compare(writeRuns(t, runs), writeRuns(t, fewer), out, Options{}); err != nil {
		t.Fatal(err)
	}
	row := find(t, readCSV(t, filepath.Join(out, "compare.csv")), map[string]string{"model": "m1"})
	for k, v := range map[string]string{
		"a_executed_k": "4", "a_attacked_n": "9", "a_called_executed_k": "4", "a_called_n": "7",
		"b_executed_k": "0", "b_attacked_n": "5", "b_called_executed_k": "0", "b_called_n": "3",
		"delta_pp": "-44.4", "delta_called_pp": "-57.1",
	} {
		if row[k] != v {
			t.Errorf("%s = %q, want %q", k, row[k], v)
		}
	}
	md, err := os.ReadFile(filepath.Join(out, "compare.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range []string{"A: " + asrAllLabel, "B: " + asrCalledLabel, "Δ called (pp, Newcombe CI)"} {
		if !strings.Contains(string(md), h) {
			t.Errorf("compare.md lacks %q", h)
		}
	}
}
