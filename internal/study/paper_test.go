package study

import (
	"encoding/csv"
	"fmt"
	"os"
	"slices"
	"strconv"
	"testing"

	"github.com/killchain/killchain/internal/defense/kinds"
)

// The released per-run log of the paper's harness, relative to this package.
const (
	paperRunsCSV  = "../importer/agentbench/testdata/paperlog/runs.csv"
	paperCellsCSV = "../importer/agentbench/testdata/paperlog/pdf_relay_cells.csv"
	pdfBatch      = "pdf_relay_v1"
)

// readCSV reads a CSV file into maps keyed by its header; a missing file fails.
func readCSV(t *testing.T, path string) []map[string]string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatalf("read %s: %v", path, err)
	}
	if len(rows) < 2 {
		t.Fatalf("%s holds no data rows", path)
	}
	out := make([]map[string]string, 0, len(rows)-1)
	for _, row := range rows[1:] {
		m := map[string]string{}
		for i, col := range rows[0] {
			m[col] = row[i]
		}
		out = append(out, m)
	}
	return out
}

func paperPlan(t *testing.T) []Run {
	t.Helper()
	s, diags := Load("../../hcl/paper.hcl")
	if len(diags) > 0 {
		t.Fatalf("paper.hcl: %v", diagKeys(diags))
	}
	runs, err := s.Plan()
	if err != nil {
		t.Fatal(err)
	}
	return runs
}

func TestPaperStudySplit(t *testing.T) {
	runs := paperPlan(t)
	text, pdf := 0, 0
	for _, r := range runs {
		if r.Batch == pdfBatch {
			pdf++
		} else {
			text++
		}
	}
	if len(runs) != 950 || text != 764 || pdf != 186 {
		t.Errorf("paper.hcl plans %d runs (%d text-surface, %d PDF-relay), want 950 (764, 186)", len(runs), text, pdf)
	}
}

// TestPaperMatchesReleasedRuns checks the text-surface grids against the
// in_paper rows of the released log, cell by cell.
func TestPaperMatchesReleasedRuns(t *testing.T) {
	rows := readCSV(t, paperRunsCSV)
	key := func(batch, task, variant, model, defense string, attacked bool) string {
		return fmt.Sprintf("%s %s %s %s %s attacked=%v", batch, task, variant, model, defense, attacked)
	}
	want := map[string]int{}
	for _, row := range rows {
		if row["in_paper"] != "True" {
			continue
		}
		if row["model_b"] != row["model_a"] {
			t.Fatalf("run %s pairs %s with %s; this test expects same-model rows", row["run_id"], row["model_a"], row["model_b"])
		}
		attacked, err := strconv.ParseBool(row["is_attacked"])
		if err != nil {
			t.Fatalf("run %s: is_attacked %q: %v", row["run_id"], row["is_attacked"], err)
		}
		want[key(row["batch"], row["scenario"], row["attack_variant"], row["model_a"], row["defense"], attacked)]++
	}
	got := map[string]int{}
	for _, r := range paperPlan(t) {
		if r.Batch == pdfBatch {
			continue
		}
		if (r.ModelB != "" || isRelay(r.Mode)) && r.ModelB != r.ModelA {
			t.Errorf("run %s: %s, want one model or a same-model pair", r.RunID, r.Models())
		}
		got[key(r.Batch, r.Task, r.Variant, r.ModelA, r.Defense, r.Attacked)]++
	}
	var keys []string
	for k := range want {
		keys = append(keys, k)
	}
	for k := range got {
		if _, ok := want[k]; !ok {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	total := 0
	for _, k := range keys {
		total += want[k]
		if got[k] != want[k] {
			t.Errorf("%s: plan has %d runs, the released log %d", k, got[k], want[k])
		}
	}
	if total != 764 {
		t.Errorf("the released log has %d in_paper runs, want 764", total)
	}
}

// TestPaperPDFRelay checks the PDF-relay grids: 46 same-model and 16
// cross-model cells of 3 attacked runs, and every cell the released
// per-cell summary lists.
func TestPaperPDFRelay(t *testing.T) {
	cells := map[string]int{}
	same, cross, gpt5 := 0, 0, 0
	for _, r := range paperPlan(t) {
		if r.Batch != pdfBatch {
			continue
		}
		if !r.Attacked || r.Task != "cross_modal_relay" || r.Condition != CondHack {
			t.Errorf("pdf run %s: task %s condition %s attacked %v", r.RunID, r.Task, r.Condition, r.Attacked)
		}
		k := fmt.Sprintf("%s %s %s", r.Models(), r.Variant, r.Defense)
		if cells[k] == 0 {
			if r.ModelA == r.ModelB {
				same++
			} else {
				cross++
			}
		}
		cells[k]++
		if r.ModelA == "gpt-5-mini" {
			gpt5++
			if !slices.Contains([]string{kinds.None, kinds.WriteFilter, kinds.PIDetector}, r.Defense) {
				t.Errorf("gpt-5-mini pdf run under %s", r.Defense)
			}
		}
	}
	if same != 46 || cross != 16 || gpt5 != 18 {
		t.Errorf("%d same-model and %d cross-model cells, %d gpt-5-mini runs; want 46, 16, 18", same, cross, gpt5)
	}
	for k, n := range cells {
		if n != 3 {
			t.Errorf("cell %s has %d runs, want 3", k, n)
		}
	}

	for _, row := range readCSV(t, paperCellsCSV) {
		k := fmt.Sprintf("%s→%s %s %s", row["writer"], row["reader"], row["variant"], row["defense"])
		if n, _ := strconv.Atoi(row["n"]); cells[k] != n {
			t.Errorf("released cell %s has n=%s, the plan %d runs", k, row["n"], cells[k])
		}
	}
}
