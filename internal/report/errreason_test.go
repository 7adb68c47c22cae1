package report

import (
	"slices"
	"strings"
	"testing"

	"github.com/killchain/killchain/internal/results"
)

// TestSandboxErrorReasons: sandbox errors of different faults are rows of
// their own, the fault in the CSV's error_reason and beside the kind in
// Markdown; the errors-by-model table still counts them as sandbox errors.
func TestSandboxErrorReasons(t *testing.T) {
	a := NewAggregator(5)
	base := results.Run{Study: "s", Task: "memory_poison", ModelA: "m", Condition: "hack", Defense: "none", Attacked: true, ErrorKind: "sandbox"}
	for i, reason := range []string{"unschedulable", "oom_killed", "unschedulable", ""} {
		r := base
		r.RunID, r.Error, r.ErrorReason = "r"+string(rune('a'+i)), "sandbox failed: "+reason, reason
		a.Add(r)
	}
	csvT, mdT := errorTables(a, newView(a, 1.96))
	col := slices.Index(csvT.Header, "error_reason")
	if col < 0 {
		t.Fatalf("header %v", csvT.Header)
	}
	got := map[string]string{}
	for _, row := range csvT.Rows {
		got[row[col]] = row[col+1]
	}
	if got["unschedulable"] != "2" || got["oom_killed"] != "1" || got[""] != "1" || len(got) != 3 {
		t.Errorf("rows by reason %v", got)
	}
	var md strings.Builder
	for _, row := range mdT.Rows {
		md.WriteString(strings.Join(row, "|") + "\n")
	}
	if !strings.Contains(md.String(), "sandbox (oom_killed)") || !strings.Contains(md.String(), "sandbox (unschedulable)") {
		t.Errorf("markdown rows:\n%s", md.String())
	}
	bm, _ := errorsByModelTables(a)
	sb := slices.Index(bm.Header, "sandbox")
	if len(bm.Rows) != 1 || bm.Rows[0][sb] != "4" {
		t.Errorf("errors by model %v %v", bm.Header, bm.Rows)
	}
}
