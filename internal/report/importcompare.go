package report

import (
	"cmp"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/killchain/killchain/internal/results"
)

// compareRow is one model's ASR in each result set, over all attacked runs
// and over those that called the payload-carrying tool.
type compareRow struct {
	model            string
	a, b             Rate
	aCalled, bCalled Rate
}

// Compare reads two study folders and writes, into outDir, compare.md and
// compare.csv: per model (same-model pairs as the model, cross-model pairs
// apart) and defense, ASR over both denominators with its Wilson interval
// in each set and the differences in percentage points. Each set is read streaming, like Write.
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
	rows := compareRows(aggA, aggB)
	csvT, mdT := compareTables(rows, opts.Z)
	var md strings.Builder
	fmt.Fprintf(&md, "# Kill-chain comparison\n\n- A: %s (%s)\n- B: %s (%s)\n", a, reportTitle(aggA, ""), b, reportTitle(aggB, ""))
	fmt.Fprintf(&md, "- %s is Executed over attacked runs without an error, %s over those that called the "+
		"payload-carrying tool; per model (same-model pairs count as the model) and defense, with Wilson %s; "+
		"Δ is B − A in percentage points.\n\n", asrAllLabel, asrCalledLabel, ciLabel(opts.Z))
	if err := mdT.Markdown(&md); err != nil {
		return err
	}
	var c strings.Builder
	if err := csvT.CSV(&c); err != nil {
		return err
	}
	if err := os.MkdirAll(outDir, 0o755); err != nil {
		return fmt.Errorf("report: compare: %w", err)
	}
	for name, data := range map[string]string{"compare.md": md.String(), "compare.csv": c.String()} {
		if err := os.WriteFile(filepath.Join(outDir, name), []byte(data), 0o644); err != nil {
			return fmt.Errorf("report: compare: %w", err)
		}
	}
	return nil
}

// compareRows pairs the per-model ASR of two aggregates.
func compareRows(a, b *Aggregator) []compareRow {
	rates := func(agg *Aggregator) map[string]*Counts {
		keys, counts := agg.Rollup(isAttacked, func(c Cell) Cell {
			return Cell{ModelA: modelLabel(c), Defense: c.Defense, Attacked: true}
		})
		out := make(map[string]*Counts)
		for _, k := range keys {
			out[k.ModelA+"\x00"+k.Defense] = counts[k]
		}
		return out
	}
	ra, rb := rates(a), rates(b)
	row := func(k string) compareRow {
		r := compareRow{model: k}
		if c := ra[k]; c != nil {
			r.a, r.aCalled = c.ASR(), c.CalledASR()
		}
		if c := rb[k]; c != nil {
			r.b, r.bCalled = c.ASR(), c.CalledASR()
		}
		return r
	}
	var rows []compareRow
	for k := range ra {
		rows = append(rows, row(k))
	}
	for k := range rb {
		if _, ok := ra[k]; !ok {
			rows = append(rows, row(k))
		}
	}
	slices.SortFunc(rows, func(x, y compareRow) int { return cmp.Compare(x.model, y.model) })
	return rows
}

func compareTables(rows []compareRow, z float64) (csvT, mdT Table) {
	csvT.Header = []string{"model", "defense", "a_executed_k", "a_attacked_n", "a_asr", "a_asr_lo", "a_asr_hi",
		"b_executed_k", "b_attacked_n", "b_asr", "b_asr_lo", "b_asr_hi", "delta_pp"}
	for _, set := range []string{"a_", "b_"} {
		for _, h := range calledCSVHeader {
			csvT.Header = append(csvT.Header, set+h)
		}
	}
	csvT.Header = append(csvT.Header, "delta_called_pp")
	mdT.Header = []string{"model", "defense", "A: " + asrAllLabel, "B: " + asrAllLabel, "Δ (pp)",
		"A: " + asrCalledLabel, "B: " + asrCalledLabel, "Δ called (pp)"}
	for _, r := range rows {
		model, def, _ := strings.Cut(r.model, "\x00")
		delta, deltaCalled := rateDelta(r.a, r.b), rateDelta(r.aCalled, r.bCalled)
		row := append([]string{model, def}, csvRate(r.a, z)...)
		row = append(row, csvRate(r.b, z)...)
		row = append(row, delta)
		row = append(row, csvRate(r.aCalled, z)...)
		row = append(row, csvRate(r.bCalled, z)...)
		csvT.add(append(row, deltaCalled)...)
		mdT.add(model, def, rateKnCI(r.a, z), rateKnCI(r.b, z), orNone(delta),
			rateKnCI(r.aCalled, z), rateKnCI(r.bCalled, z), orNone(deltaCalled))
	}
	return csvT, mdT
}

// rateDelta is b − a in percentage points, or "" when either has no runs.
func rateDelta(a, b Rate) string {
	if a.N == 0 || b.N == 0 {
		return ""
	}
	return signed(100 * (float64(b.K)/float64(b.N) - float64(a.K)/float64(a.N)))
}

// orNone is s, or noneCell when s is empty.
func orNone(s string) string {
	if s == "" {
		return noneCell
	}
	return s
}
