package report

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/killchain/killchain/internal/results"
)

// TestAttackTables: runs of library attacks get tables per family and per
// encoding with Wilson intervals; a study of the tasks' own variants gets
// neither.
func TestAttackTables(t *testing.T) {
	tr, fa := true, false
	run := func(id, variant, attack string, executed bool) results.Run {
		e := &fa
		stage := "exposed"
		if executed {
			e, stage = &tr, "executed"
		}
		return results.Run{Study: "atk", RunID: id, Task: "memory_poison", Variant: variant, Attack: attack, Surface: "memory",
			Mode: "single", Family: results.FamilyInjection, Condition: "hack", Defense: "none", ModelA: "decoder",
			Attacked: true, Canary: "SECRET-0A1B2C3D", Stage: stage, Exposed: &tr, Executed: e}
	}
	withAttacks := []results.Run{
		run("a1", "tool_knowledge+base64", "tool_knowledge+base64", true),
		run("a2", "tool_knowledge+base64", "tool_knowledge+base64", true),
		run("a3", "tool_knowledge", "tool_knowledge", false),
		run("a4", "polite_request+base64", "polite_request+base64", true),
		run("a5", "direct", "direct", false),
	}
	dir := writeRuns(t, withAttacks)
	if err := Write(dir, Options{NoFigures: true, NoHTML: true}); err != nil {
		t.Fatal(err)
	}
	read := func(name string) string {
		data, err := os.ReadFile(filepath.Join(dir, "report", name))
		if err != nil {
			t.Fatal(err)
		}
		return string(data)
	}
	fam, enc := read(AttackFamilyFile), read(AttackEncodingFile)
	for _, want := range []string{"tool_knowledge,decoder,2,3", "polite_request,decoder,1,1", "direct,decoder,0,1"} {
		if !strings.Contains(fam, want) {
			t.Errorf("%s lacks %q:\n%s", AttackFamilyFile, want, fam)
		}
	}
	for _, want := range []string{"base64,decoder,3,3", "none,decoder,0,2"} {
		if !strings.Contains(enc, want) {
			t.Errorf("%s lacks %q:\n%s", AttackEncodingFile, want, enc)
		}
	}
	md := read(MarkdownFile)
	for _, want := range []string{"Executed by model and attack family", "Executed by model and encoding", "3/3 · 100.0% (43.9–100.0)",
		"Attack goal by model and encoding", "Attack goal by model and attack family"} {
		if !strings.Contains(md, want) {
			t.Errorf("report.md lacks %q", want)
		}
	}

	own := writeRuns(t, []results.Run{run("o1", "direct", "direct", true), run("o2", "override", "", false)})
	if err := Write(own, Options{NoFigures: true, NoHTML: true}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(own, "report", AttackFamilyFile)); !os.IsNotExist(err) {
		t.Errorf("a study of own variants has %s (%v)", AttackFamilyFile, err)
	}
}
