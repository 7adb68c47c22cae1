package report

import (
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/killchain/killchain/internal/errkind"
)

// maxMessage bounds an error message in Markdown; the CSV keeps it whole.
const maxMessage = 100

// errorTables group the errored runs by model or pair, task, condition,
// defense and error kind, with the example of smallest run id.
func errorTables(a *Aggregator, v view) (csvT, mdT Table) {
	keys, groups := a.Errors(func(c Cell) Cell {
		return Cell{Task: c.Task, ModelA: c.ModelA, ModelB: c.ModelB, Condition: c.Condition, Defense: c.Defense}
	})
	csvT.Header = []string{"model", "model_a", "model_b", "task", "condition", "defense", "error_kind",
		"error_reason", "count", "example_run_id", "example_error"}
	mdT.Header = []string{"model", "task", "condition", "defense", "kind", "count", "example run", "message"}
	for _, k := range keys {
		g := groups[k]
		row := append(modelCols(k.Cell), k.Task, k.Condition, k.Defense, k.Kind, k.Reason, itoa(g.Count), g.RunID, g.Message)
		csvT.add(row...)
		kind := k.Kind
		if k.Reason != "" {
			kind += " (" + k.Reason + ")"
		}
		mdT.add(k.Model(), k.Task, k.Condition, k.Defense, kind, itoa(g.Count), g.RunID, truncate(g.Message, maxMessage))
	}
	v.splitCondition = true
	return csvT, v.md(mdT)
}

// truncate shortens s to at most n runes, marking the cut with "…".
func truncate(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}

// errorKinds are the values of runs.jsonl's error_kind (errkind.All), in the
// order the errors-by-model table shows them: the model's own failures
// first, then the infrastructure's.
var errorKinds = func() []string {
	out := make([]string, len(errkind.All))
	for i, k := range errkind.All {
		out[i] = string(k)
	}
	return out
}()

// otherKind is the column of error kinds not in errorKinds (an empty kind
// included).
const otherKind = "other"

// errorsByModelTables count, per model, all runs and the errored runs by
// error kind. Same-model relay pairs count as the model; cross-model pairs
// are rows of their own. Every model appears, with zeros where it had no
// error. The Markdown shows an "other" column only when some run has a kind
// outside errorKinds; the CSV always has it.
func errorsByModelTables(a *Aggregator) (csvT, mdT Table) {
	project := func(c Cell) Cell { return Cell{ModelA: modelLabel(c)} }
	keys, counts := a.RollupAll(nil, project)
	ekeys, groups := a.Errors(project)
	byKind := make(map[string]map[string]int, len(keys))
	other := false
	for _, k := range ekeys {
		kind := k.Kind
		if !slices.Contains(errorKinds, kind) {
			kind, other = otherKind, true
		}
		m := byKind[k.ModelA]
		if m == nil {
			m = make(map[string]int)
			byKind[k.ModelA] = m
		}
		m[kind] += groups[k].Count
	}
	kinds := append(slices.Clone(errorKinds), otherKind)
	csvT.Header = append([]string{"model", "runs", "errors"}, kinds...)
	mdT.Header = append([]string{"model", "runs", "errored"}, errorKinds...)
	if other {
		mdT.Header = append(mdT.Header, otherKind)
	}
	for _, k := range keys {
		c := counts[k]
		all := c.Runs + c.Errors
		csvRow := []string{k.ModelA, itoa(all), itoa(c.Errors)}
		mdRow := []string{k.ModelA, itoa(all), knPct(c.Errors, all)}
		for _, kind := range kinds {
			n := byKind[k.ModelA][kind]
			csvRow = append(csvRow, itoa(n))
			if kind != otherKind || other {
				mdRow = append(mdRow, itoa(n))
			}
		}
		csvT.add(csvRow...)
		mdT.add(mdRow...)
	}
	return csvT, mdT
}

// errorKindSummary is "truncated 2, refused 1, provider 3": the errored runs
// by kind in errorKinds order, other kinds after, kinds without runs left
// out; "" when no run errored.
func errorKindSummary(a *Aggregator) string {
	keys, groups := a.Errors(func(Cell) Cell { return Cell{} })
	n := make(map[string]int)
	var others []string
	for _, k := range keys {
		n[k.Kind] += groups[k].Count
		if !slices.Contains(errorKinds, k.Kind) {
			others = append(others, k.Kind)
		}
	}
	var parts []string
	for _, kind := range append(slices.Clone(errorKinds), others...) {
		if n[kind] > 0 {
			name := kind
			if name == "" {
				name = "(no kind)"
			}
			parts = append(parts, name+" "+itoa(n[kind]))
		}
	}
	return strings.Join(parts, ", ")
}

// attackerErrorsNote explains the attacker kind, for a study that has
// such errors: unlike the others, a resume does not run them again.
func attackerErrorsNote(a *Aggregator) string {
	keys, _ := a.Errors(func(Cell) Cell { return Cell{} })
	for _, k := range keys {
		if k.Kind == string(errkind.Attacker) {
			return " Except attacker: an adaptive round's attacker gave no usable payload for the run, which " +
				"never started; a resume leaves it, since the round's proposal is on record (see Adaptive attacks)."
		}
	}
	return ""
}
