package report

import (
	"path/filepath"

	"github.com/killchain/killchain/internal/results"
)

// CSV files of the per-variant tables.
const (
	VariantStagesFile = "stages_by_variant.csv"
	VariantFile       = "asr_by_variant.csv"
	TaskDefsFile      = "task_definitions.csv"
)

// variantGroup keys a cell by task, variant, model or pair, condition and
// defense.
func variantGroup(c Cell) Cell {
	g := taskGroup(c)
	g.Variant = c.Variant
	return g
}

// variantSections are the stage and ASR tables broken down by payload
// variant: every variant of every task, built-in or the study's own, side
// by side.
func variantSections(agg *Aggregator, v view, keep func(Cell) bool, scope string, z float64) []section {
	stCSV, stMD := stageTablesBy(agg, v, variantGroup, stageKey{head: []string{"task", "variant"},
		ids: func(k Cell) []string { return []string{k.Task, k.Variant} }})
	out := []section{{ID: "stages-by-variant", Title: "Kill-chain stages by task and variant", Intro: "The stage " +
		"table above, one row per payload variant: what each wording, at the placements it fills, reached. " +
		"Executed is the ASR over all attacked runs of the variant; " + asrCalledLabel + " is Executed over " +
		"those that called the payload-carrying tool.", Table: stMD, CSVName: VariantStagesFile, CSV: stCSV}}
	byVariant := buildMatrix(agg, keep, func(c Cell) string { return c.Task + "/" + c.Variant }, modelLabel)
	vCSV, vMD := matrixTables(byVariant, "task/variant", "model", z)
	return append(out,
		section{ID: "by-variant", Title: "Executed by model and variant", Intro: asrAllLabel + ": Executed/attacked over " +
			scope + ", per task and payload variant.", Table: vMD, CSVName: VariantFile, CSV: vCSV},
		section{ID: "by-variant-called", Title: "Executed by model and variant, runs that called the payload tool",
			Intro: asrCalledLabel + ": Executed over the runs of the table above that called the payload-carrying " +
				"tool (" + VariantFile + " holds both).", Table: matrixGrid(byVariant, "task/variant", (*Counts).CalledASR, z)})
}

// taskDefsSection lists the task definitions the study ran, as its
// manifest records them: which definition each run of a task used (the
// folder keeps every one in task_defs/, and each transcript its hash).
// It is absent for folders whose manifest names none.
func taskDefsSection(dir string) (section, bool) {
	m, err := results.ReadManifest(dir)
	if err != nil || len(m.Tasks) == 0 {
		return section{}, false
	}
	csvT := Table{Header: []string{"task", "builtin", "source", "sha256", "file"}}
	mdT := Table{Header: []string{"task", "defined", "sha256", "definition"}}
	for _, t := range m.Tasks {
		builtin := "false"
		if t.Builtin {
			builtin = "true"
		}
		csvT.add(t.Name, builtin, t.Source, t.SHA256, t.File)
		short := t.SHA256
		if len(short) > 12 {
			short = short[:12]
		}
		mdT.add(t.Name, t.Source, short, filepath.ToSlash(t.File))
	}
	return section{ID: "task-definitions", Title: "Task definitions", Intro: "The definition every run of each task " +
		"used, as the study folder keeps it: built-in ones as this version of the tool embeds them, the study's " +
		"own from the file named. A resume refuses a task whose definition changed.",
		Table: mdT, CSVName: TaskDefsFile, CSV: csvT}, true
}
