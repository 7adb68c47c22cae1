package report

import (
	"cmp"
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/killchain/killchain/internal/results"
	"github.com/killchain/killchain/internal/rooted"
	"github.com/killchain/killchain/internal/sanitize"
)

// compareRow is one model's ASR in each result set, over all attacked runs
// and over those that called the payload-carrying tool, summed over the
// cells both sets hold.
type compareRow struct {
	model            string
	a, b             Rate
	aCalled, bCalled Rate
}

// Compare reads two study folders and writes, into outDir (A/compare when
// ""), compare.md and
// compare.csv: per model (same-model pairs as the model, cross-model pairs
// apart) and defense, ASR over both denominators with its Wilson interval
// in each set, and the difference B − A with its Newcombe interval (as the
// gate's baseline comparison). Only the attacked injection cells both sets
// hold are compared — a subset against a full study compares the same
// cells of each — and the cells left out are listed. Each set is read
// streaming, like Write.
func Compare(a, b, outDir string, opts Options) error {
	opts = opts.withDefaults(a)
	read := func(dir string) (*Aggregator, error) {
		agg := NewAggregator(0)
		_, err := results.ReadLatest(context.Background(), filepath.Join(dir, results.RunsFile), results.ReadOptions{Detail: results.Flat}, func(r *results.Run) error {
			agg.Add(*r)
			return nil
		})
		return agg, err
	}
	aggA, err := read(a)
	if err != nil {
		return fmt.Errorf("report: compare: %w", err)
	}
	aggB, err := read(b)
	if err != nil {
		return fmt.Errorf("report: compare: %w", err)
	}
	rows, onlyA, onlyB := compareRows(aggA, aggB)
	csvT, mdT := compareTables(rows, opts.Z)
	var md strings.Builder
	fmt.Fprintf(&md, "# Kill-chain comparison\n\n- A: %s (%s)\n- B: %s (%s)\n", a, reportTitle(aggA, ""), b, reportTitle(aggB, ""))
	fmt.Fprintf(&md, "- %s is Executed over attacked injection runs without an error, %s over those that called the "+
		"payload-carrying tool; per model (same-model pairs count as the model) and defense, over the cells "+
		"(task, variant, models, condition, defense) both sets hold, with Wilson %s; Δ is B − A in percentage "+
		"points with its Newcombe interval.\n", asrAllLabel, asrCalledLabel, ciLabel(opts.Z))
	for _, side := range []struct {
		name  string
		cells []Cell
	}{{"A", onlyA}, {"B", onlyB}} {
		if len(side.cells) == 0 {
			continue
		}
		fmt.Fprintf(&md, "- Left out: %d attacked cells only %s holds (%s).\n", len(side.cells), side.name, cellList(side.cells, 5))
	}
	md.WriteString("\n")
	if len(rows) == 0 {
		md.WriteString("_The two sets hold no attacked cell in common: nothing to compare._\n")
	} else if err := mdT.Markdown(&md); err != nil {
		return err
	}
	var c strings.Builder
	if err := csvT.CSV(&c); err != nil {
		return err
	}
	out, err := rooted.OpenOut(a, "compare", outDir)
	if err != nil {
		return fmt.Errorf("report: compare: %w", err)
	}
	defer out.Close()
	for name, data := range map[string]string{"compare.md": md.String(), "compare.csv": c.String()} {
		if err := out.WriteFile(name, []byte(data)); err != nil {
			return fmt.Errorf("report: compare: %w", err)
		}
	}
	return nil
}

// compareKey is a cell as both sets name it: what it ran, not which batch
// or grid it ran in.
func compareKey(c Cell) Cell {
	return Cell{Task: c.Task, Variant: c.Variant, Condition: c.Condition, Defense: c.Defense, ModelA: c.ModelA, ModelB: c.ModelB, Attacked: true}
}

// compareRows sums, per model and defense, the ASR of the attacked cells
// both aggregates hold (with a run without an error in each), and returns
// the cells only one of them holds.
func compareRows(a, b *Aggregator) (rows []compareRow, onlyA, onlyB []Cell) {
	_, ca := a.Rollup(isAttacked, compareKey)
	_, cb := b.Rollup(isAttacked, compareKey)
	byModel := map[string]*compareRow{}
	for cell, x := range ca {
		y, ok := cb[cell]
		if !ok || x.Runs == 0 || y.Runs == 0 {
			continue
		}
		k := modelLabel(cell) + "\x00" + cell.Defense
		r := byModel[k]
		if r == nil {
			r = &compareRow{model: k}
			byModel[k] = r
		}
		r.a, r.b = addRate(r.a, x.ASR()), addRate(r.b, y.ASR())
		r.aCalled, r.bCalled = addRate(r.aCalled, x.CalledASR()), addRate(r.bCalled, y.CalledASR())
	}
	only := func(x, y map[Cell]*Counts) []Cell {
		var out []Cell
		for cell, c := range x {
			if d, ok := y[cell]; c.Runs > 0 && (!ok || d.Runs == 0) {
				out = append(out, cell)
			}
		}
		slices.SortFunc(out, compareCells)
		return out
	}
	for _, r := range byModel {
		rows = append(rows, *r)
	}
	slices.SortFunc(rows, func(x, y compareRow) int { return cmp.Compare(x.model, y.model) })
	return rows, only(ca, cb), only(cb, ca)
}

func addRate(a, b Rate) Rate { return Rate{K: a.K + b.K, N: a.N + b.N} }

// cellList names up to n cells, then how many more.
func cellList(cells []Cell, n int) string {
	var parts []string
	for i, c := range cells {
		if i == n {
			parts = append(parts, fmt.Sprintf("and %d more", len(cells)-n))
			break
		}
		parts = append(parts, sanitize.Line(strings.Join([]string{c.Task, c.Variant, c.Model(), c.Condition, c.Defense}, "/")))
	}
	return strings.Join(parts, ", ")
}

func compareTables(rows []compareRow, z float64) (csvT, mdT Table) {
	csvT.Header = []string{"model", "defense", "a_executed_k", "a_attacked_n", "a_asr", "a_asr_lo", "a_asr_hi",
		"b_executed_k", "b_attacked_n", "b_asr", "b_asr_lo", "b_asr_hi", "delta_pp", "delta_lo_pp", "delta_hi_pp"}
	for _, set := range []string{"a_", "b_"} {
		for _, h := range calledCSVHeader {
			csvT.Header = append(csvT.Header, set+h)
		}
	}
	csvT.Header = append(csvT.Header, "delta_called_pp", "delta_called_lo_pp", "delta_called_hi_pp")
	mdT.Header = []string{"model", "defense", "A: " + asrAllLabel, "B: " + asrAllLabel, "Δ (pp, Newcombe CI)",
		"A: " + asrCalledLabel, "B: " + asrCalledLabel, "Δ called (pp, Newcombe CI)"}
	for _, r := range rows {
		model, def, _ := strings.Cut(r.model, "\x00")
		d, dlo, dhi := rateDelta(r.a, r.b, z)
		dc, dclo, dchi := rateDelta(r.aCalled, r.bCalled, z)
		row := append([]string{model, def}, csvRate(r.a, z)...)
		row = append(row, csvRate(r.b, z)...)
		row = append(row, d, dlo, dhi)
		row = append(row, csvRate(r.aCalled, z)...)
		row = append(row, csvRate(r.bCalled, z)...)
		csvT.add(append(row, dc, dclo, dchi)...)
		mdT.add(model, def, rateKnCI(r.a, z), rateKnCI(r.b, z), deltaCI(d, dlo, dhi),
			rateKnCI(r.aCalled, z), rateKnCI(r.bCalled, z), deltaCI(dc, dclo, dchi))
	}
	return csvT, mdT
}
