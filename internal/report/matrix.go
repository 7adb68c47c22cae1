package report

import "github.com/killchain/killchain/internal/defense/kinds"

// The matrices: attack success of model × task (the paper's Table A1) and
// model × surface, and the writer × reader matrix of the relay tasks
// (Figure 5), over attacked runs without a defense. The figures draw the
// same matrices.

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
