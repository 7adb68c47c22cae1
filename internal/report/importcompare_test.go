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
	if err := Compare(a, b, out, Options{}); err != nil {
		t.Fatal(err)
	}
	rows := readCSV(t, filepath.Join(out, "compare.csv"))
	var alpha, compliant map[string]string
	for _, r := range rows {
		switch r["model"] {
		case "alpha":
			alpha = r
		case "compliant":
			if r["defense"] == "none" {
				compliant = r
			}
		}
	}
	if alpha == nil || alpha["a_attacked_n"] != "0" || alpha["b_executed_k"] != "2" || alpha["b_attacked_n"] != "3" || alpha["delta_pp"] != "" {
		t.Errorf("alpha (only in B) = %v", alpha)
	}
	if compliant == nil || compliant["a_executed_k"] != "54" || compliant["a_attacked_n"] != "63" || compliant["b_attacked_n"] != "0" {
		t.Errorf("compliant (only in A) = %v", compliant)
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
	for _, h := range []string{"A: " + asrAllLabel, "B: " + asrCalledLabel, "Δ called (pp)"} {
		if !strings.Contains(string(md), h) {
			t.Errorf("compare.md lacks %q", h)
		}
	}
}
