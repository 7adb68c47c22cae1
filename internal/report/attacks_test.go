package report

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/killchain/killchain/internal/results"
	"github.com/killchain/killchain/internal/vocab"
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
			Mode: "single", Family: vocab.FamilyInjection, Condition: "hack", Defense: "none", ModelA: "decoder",
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

	stages := map[string][]string{
		// attack family, model, model_a, model_b, condition, defense, n,
		// exposed k/n, persisted k/n (n/a: empty), relayed k/n, executed k/n
		AttackFamilyStagesFile: {"tool_knowledge,decoder,decoder,,hack,none,3,3,3,,,,,2,3,", "direct,decoder,decoder,,hack,none,1,1,1,,,,,0,1,"},
		EncodingStagesFile:     {"base64,decoder,decoder,,hack,none,3,3,3,,,,,3,3,", "none,decoder,decoder,,hack,none,2,2,2,,,,,0,2,"},
	}
	for file, wants := range stages {
		got := read(file)
		for _, want := range wants {
			if !strings.Contains(got, want) {
				t.Errorf("%s lacks %q:\n%s", file, want, got)
			}
		}
	}
	for _, want := range []string{"Kill-chain stages by attack family", "Kill-chain stages by encoding",
		"| tool_knowledge | decoder | 3   | 3/3 · 100.0% (43.9–100.0) | n/a       | n/a     | 2/3 · 66.7% (20.8–93.9)   |"} {
		if !strings.Contains(md, want) {
			t.Errorf("report.md lacks %q:\n%s", want, md)
		}
	}

	// The stage figure per family and per encoding is drawn beside the
	// heat maps.
	withFigures := writeRuns(t, withAttacks)
	if err := Write(withFigures, Options{NoHTML: true}); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{FigStagesFamily, FigStagesEncoding} {
		svg, err := os.ReadFile(filepath.Join(withFigures, "report", FiguresDir, name+".svg"))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(svg), "Where the canary stopped, by") {
			t.Errorf("%s.svg lacks its title", name)
		}
	}

	own := writeRuns(t, []results.Run{run("o1", "direct", "direct", true), run("o2", "override", "", false)})
	if err := Write(own, Options{NoHTML: true}); err != nil {
		t.Fatal(err)
	}
	for _, file := range []string{AttackFamilyFile, AttackFamilyStagesFile, EncodingStagesFile,
		filepath.Join(FiguresDir, FigStagesFamily+".svg")} {
		if _, err := os.Stat(filepath.Join(own, "report", file)); !os.IsNotExist(err) {
			t.Errorf("a study of own variants has %s (%v)", file, err)
		}
	}
}
