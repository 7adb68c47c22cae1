package report

import (
	"slices"
	"strings"

	"github.com/killchain/killchain/internal/defense/kinds"
)

// The paper's tables: per model (Table 1), model × task (Table A1), model ×
// surface, the writer × reader matrix (Figure 5) and defenses by channel.

// isBaseline reports whether a cell ran without a defense.
func isBaseline(c Cell) bool { return c.Defense == "" || c.Defense == kinds.None }

// baselineFilter returns the filter the matrices use: attacked runs without
// a defense, or every attacked run when the study has none undefended; the
// string says which, for the table's introduction.
func baselineFilter(a *Aggregator) (func(Cell) bool, string) {
	base := func(c Cell) bool { return c.Attacked && isBaseline(c) }
	if len(a.Distinct(base, func(c Cell) string { return c.Task })) > 0 {
		return base, "attacked runs without a defense (defense none), every attacked condition pooled"
	}
	return isAttacked, "every attacked run (the study has no undefended runs), every defense and attacked condition pooled"
}

// modelLabel is the row label of the model tables: the model itself for
// single-agent runs and same-model pairs, "writer→reader" for cross-model
// pairs.
func modelLabel(c Cell) string {
	if c.ModelB == "" || c.ModelB == c.ModelA {
		return c.ModelA
	}
	return c.ModelA + "→" + c.ModelB
}

// modelTables are the paper's Table 1: per model (same-model pairs count as
// the model; cross-model pairs are in the pair matrix) and defense, attacked
// n, ASR with its interval, task success on the clean controls, runs with no
// tool call and errors.
func modelTables(a *Aggregator, v view) (csvT, mdT Table) {
	single := func(c Cell) bool { return c.ModelB == "" || c.ModelB == c.ModelA }
	project := func(c Cell) Cell {
		return Cell{ModelA: c.ModelA, Defense: c.Defense, Attacked: c.Attacked}
	}
	keys, counts := a.Rollup(single, project)
	csvT.Header = []string{"model", "defense", "attacked_n", "executed_k", "asr", "asr_lo", "asr_hi",
		"attack_goal_k", "no_tool_call", "clean_n", "task_success_k", "task_success", "task_success_lo",
		"task_success_hi", "errors"}
	csvT.Header = append(csvT.Header, calledCSVHeader...)
	mdT.Header = []string{"model", "defense", "attacked n", asrAllLabel, "no tool call", asrCalledLabel,
		"attack goal", "task success (clean)", "errors"}
	seen := make(map[Cell]bool)
	for _, k := range keys {
		row := Cell{ModelA: k.ModelA, Defense: k.Defense}
		if seen[row] {
			continue
		}
		seen[row] = true
		at, cl := &Counts{}, &Counts{}
		if c := counts[Cell{ModelA: k.ModelA, Defense: k.Defense, Attacked: true}]; c != nil {
			at = c
		}
		if c := counts[row]; c != nil {
			cl = c
		}
		asr, called := at.ASR(), at.CalledASR()
		ts := Rate{K: cl.TaskSuccess, N: cl.Runs}
		r := []string{k.ModelA, k.Defense, itoa(at.Runs)}
		r = append(r, csvRate(asr, v.z)[:1]...)
		r = append(r, csvRate(asr, v.z)[2:]...)
		r = append(r, itoa(at.AttackGoal), itoa(at.NoToolCall), itoa(cl.Runs))
		r = append(r, csvRate(ts, v.z)[:1]...)
		r = append(r, csvRate(ts, v.z)[2:]...)
		r = append(r, itoa(at.Errors+cl.Errors))
		r = append(r, csvRate(called, v.z)...)
		csvT.add(r...)
		mdT.add(k.ModelA, k.Defense, itoa(at.Runs), rateKnCI(asr, v.z), itoa(at.NoToolCall), rateKnCI(called, v.z),
			knCI(at.AttackGoal, at.Runs, v.z), knCI(ts.K, ts.N, v.z), itoa(at.Errors+cl.Errors))
	}
	return csvT, v.md(mdT)
}

// matrix is executed/attacked per row label × column value.
type matrix struct {
	rows, cols []string
	cells      map[[2]string]*Counts
}

// buildMatrix rolls the cells keep accepts into rows and columns.
func buildMatrix(a *Aggregator, keep func(Cell) bool, row, col func(Cell) string) matrix {
	m := matrix{cells: make(map[[2]string]*Counts)}
	rows, cols := map[string]bool{}, map[string]bool{}
	for _, c := range a.Cells() {
		if !keep(c) {
			continue
		}
		k := [2]string{row(c), col(c)}
		p := m.cells[k]
		if p == nil {
			p = &Counts{}
			m.cells[k] = p
		}
		cnt := a.Counts(c)
		p.Merge(&cnt)
		rows[k[0]], cols[k[1]] = true, true
	}
	m.rows, m.cols = sortedKeys(rows), sortedKeys(cols)
	return m
}

// at returns the counts of one cell of the matrix (zero when absent).
func (m matrix) at(r, c string) *Counts {
	if p := m.cells[[2]string{r, c}]; p != nil {
		return p
	}
	return &Counts{}
}

// matrixTables render a matrix: CSV in long form, one row per non-empty
// cell, with both ASR denominators; Markdown as the grid of ASR over all
// attacked runs (matrixGrid gives the other).
func matrixTables(m matrix, rowName, colName string, z float64) (csvT, mdT Table) {
	csvT.Header = []string{rowName, colName, "executed_k", "attacked_n", "asr", "asr_lo", "asr_hi", "errors"}
	csvT.Header = append(csvT.Header, calledCSVHeader...)
	for _, r := range m.rows {
		for _, c := range m.cols {
			cnt := m.at(r, c)
			if cnt.Runs+cnt.Errors > 0 {
				row := append([]string{r, c}, csvRate(cnt.ASR(), z)...)
				row = append(row, itoa(cnt.Errors))
				csvT.add(append(row, csvRate(cnt.CalledASR(), z)...)...)
			}
		}
	}
	return csvT, matrixGrid(m, rowName, (*Counts).ASR, z)
}

// matrixGrid is one rate of a matrix as a Markdown grid: k/n · rate (CI)
// per cell, noneCell where the rate has nothing to divide.
func matrixGrid(m matrix, rowName string, rate func(*Counts) Rate, z float64) Table {
	t := Table{Header: append([]string{rowName}, m.cols...)}
	for _, r := range m.rows {
		md := []string{r}
		for _, c := range m.cols {
			md = append(md, rateKnCI(rate(m.at(r, c)), z))
		}
		t.add(md...)
	}
	return t
}

// isRelay reports whether a cell is a writer/reader pair.
func isRelay(c Cell) bool { return c.ModelB != "" }

// pairTables are the writer × reader matrix of relay runs (the paper's
// Figure 5): Persisted and Executed with their intervals.
func pairTables(a *Aggregator, keep func(Cell) bool, z float64) (csvT, mdT Table, m matrix) {
	m = buildMatrix(a, func(c Cell) bool { return keep(c) && isRelay(c) },
		func(c Cell) string { return c.ModelA }, func(c Cell) string { return c.ModelB })
	csvT.Header = []string{"writer", "reader", "n", "persisted_k", "persisted_n", "persisted", "persisted_lo",
		"persisted_hi", "relayed_k", "relayed_n", "executed_k", "executed_n", "executed", "executed_lo",
		"executed_hi", "attack_goal_k", "errors"}
	csvT.Header = append(csvT.Header, calledCSVHeader...)
	mdT.Header = []string{"writer", "reader", "n", "Persisted", "Relayed", "Executed", "no tool call",
		asrCalledLabel, "attack goal"}
	for _, w := range m.rows {
		for _, r := range m.cols {
			c := m.at(w, r)
			if c.Runs+c.Errors == 0 {
				continue
			}
			row := []string{w, r, itoa(c.Runs)}
			p := csvRate(c.Persisted, z)
			row = append(row, p[0], p[1], p[2], p[3], p[4], itoa(c.Relayed.K), itoa(c.Relayed.N))
			row = append(row, csvRate(c.Executed, z)...)
			row = append(row, itoa(c.AttackGoal), itoa(c.Errors))
			row = append(row, csvRate(c.CalledASR(), z)...)
			csvT.add(row...)
			mdT.add(w, r, itoa(c.Runs), stageCI(c.Persisted, z), stageCI(c.Relayed, z), stageCI(c.Executed, z),
				itoa(c.NoToolCall), rateKnCI(c.CalledASR(), z), knCI(c.AttackGoal, c.Runs, z))
		}
	}
	return csvT, mdT, m
}

// defenseChannels names the channels a defense inspects, for the table.
func defenseChannels(kind string) string {
	ch := kinds.Channels(kind)
	if len(ch) == 0 {
		if isBaseline(Cell{Defense: kind}) {
			return noneCell
		}
		return "?"
	}
	return strings.Join(ch, ", ")
}

// defenseTables set each defense beside the channel it inspects and against
// defense none of the same batch, task and model or pair: ASR, its change in
// percentage points, Persisted and the blocked writes and calls.
func defenseTables(a *Aggregator, v view) (csvT, mdT Table) {
	keys, counts := a.Rollup(isAttacked, func(c Cell) Cell {
		return Cell{Batch: c.Batch, Task: c.Task, ModelA: c.ModelA, ModelB: c.ModelB, Defense: c.Defense, Attacked: true}
	})
	// Only groups that ran more than one defense say anything about defenses.
	defs := make(map[Cell]int)
	for _, k := range keys {
		g := k
		g.Defense = ""
		defs[g]++
	}
	slices.SortFunc(keys, byTask)
	csvT.Header = []string{"batch", "task", "model", "defense", "channels", "n", "executed_k", "asr", "asr_lo",
		"asr_hi", "none_executed_k", "none_n", "none_asr", "delta_pp", "persisted_k", "persisted_n",
		"blocked_writes", "blocked_calls", "attack_goal_k", "task_success_k"}
	csvT.Header = append(csvT.Header, calledCSVHeader...)
	csvT.Header = append(csvT.Header, "classifier_errors", "classifier_error_runs", "failed_calls", "canary_attempts")
	mdT.Header = []string{"batch", "task", "model", "defense", "inspects", asrAllLabel, "vs none", "Δ (pp)",
		asrCalledLabel, "Persisted", "blocked writes", "blocked calls", "classifier errors (checks)",
		"classifier errors (runs)"}
	for _, k := range keys {
		g := k
		g.Defense = ""
		if defs[g] < 2 {
			continue
		}
		c := counts[k]
		base := &Counts{}
		hasBase := false
		for _, none := range []string{kinds.None, ""} {
			b := k
			b.Defense = none
			if p := counts[b]; p != nil {
				base, hasBase = p, true
				break
			}
		}
		delta := ""
		if hasBase && c.Runs > 0 && base.Runs > 0 {
			d := 100 * (float64(c.Executed.K)/float64(c.Runs) - float64(base.Executed.K)/float64(base.Runs))
			delta = signed(d)
		}
		asr := csvRate(Rate{c.Executed.K, c.Runs}, v.z)
		row := []string{k.Batch, k.Task, k.Model(), k.Defense, defenseChannels(k.Defense), itoa(c.Runs),
			asr[0], asr[2], asr[3], asr[4], itoa(base.Executed.K), itoa(base.Runs), frac(base.Executed.K, base.Runs),
			delta, itoa(c.Persisted.K), itoa(c.Persisted.N), itoa(c.BlockedWrites), itoa(c.BlockedCalls),
			itoa(c.AttackGoal), itoa(c.TaskSuccess)}
		row = append(row, csvRate(c.CalledASR(), v.z)...)
		row = append(row, itoa(c.ClassifierErrors), itoa(c.ClassifierErrorRuns), itoa(c.FailedCalls),
			itoa(c.CanaryAttempts))
		csvT.add(row...)
		vsNone, md := noneCell, delta
		if hasBase {
			vsNone = knCI(base.Executed.K, base.Runs, v.z)
		}
		if isBaseline(k) {
			vsNone, md = "(baseline)", ""
		}
		if md == "" {
			md = noneCell
		}
		mdT.add(k.Batch, k.Task, k.Model(), k.Defense, defenseChannels(k.Defense), rateKnCI(c.ASR(), v.z),
			vsNone, md, rateKnCI(c.CalledASR(), v.z), stageCI(c.Persisted, v.z), itoa(c.BlockedWrites),
			itoa(c.BlockedCalls), itoa(c.ClassifierErrors), kn(c.ClassifierErrorRuns, c.Runs))
	}
	return csvT, mdT
}
