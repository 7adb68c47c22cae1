package report

import (
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/killchain/killchain/internal/cost"
	"github.com/killchain/killchain/internal/results"
)

// CSV files of the cost sections.
const (
	CostModelsFile = "cost_by_model.csv"
	CostCellsFile  = "cost_by_cell.csv"
)

// costRow is the token and cost counters of one row.
type costRow struct {
	runs, estimated, rateLimited int
	tok                          cost.Tokens
	usd                          float64
}

func (c *costRow) add(r *results.Run) {
	c.runs++
	c.tok.Add(cost.Tokens{Input: r.InputTokens, CachedInput: r.CachedInputTokens, CacheWrite: r.CacheWriteTokens,
		Output: r.OutputTokens, Reasoning: r.ReasoningTokens})
	c.usd += r.Cost
	c.rateLimited += r.RateLimited
	if r.TokensEstimated {
		c.estimated++
	}
}

// costCell is one cell as the cost table groups it.
type costCell struct{ model, task, variant, condition, defense string }

// costTally sums tokens and costs per model (or writer → reader pair), per
// cell and over the study, from runs.jsonl's own fields: its totals are
// the sums over the file.
type costTally struct {
	models map[string]*costRow
	cells  map[costCell]*costRow
	total  costRow
}

func newCostTally() *costTally {
	return &costTally{models: map[string]*costRow{}, cells: map[costCell]*costRow{}}
}

func (t *costTally) add(r *results.Run) {
	model := modelLabel(Cell{ModelA: r.ModelA, ModelB: r.ModelB})
	m := t.models[model]
	if m == nil {
		m = &costRow{}
		t.models[model] = m
	}
	m.add(r)
	ck := costCell{model, r.Task, r.Variant, r.Condition, r.Defense}
	c := t.cells[ck]
	if c == nil {
		c = &costRow{}
		t.cells[ck] = c
	}
	c.add(r)
	t.total.add(r)
}

// priceBasis says how a model's runs were priced, from the study's
// manifest: "scripted: $0", its price, or that it had none.
func priceBasis(m results.Manifest, label string) string {
	var parts []string
	for _, name := range strings.Split(label, "→") { // modelLabel's writer→reader
		name = strings.TrimSpace(name)
		basis := "no price ($0 recorded)"
		for _, info := range m.Models {
			if info.Name != name {
				continue
			}
			switch {
			case info.Provider == "scripted":
				basis = "scripted: $0"
			case info.Price != nil:
				basis = info.Price.String()
			}
		}
		parts = append(parts, name+": "+basis)
	}
	if len(parts) == 1 {
		_, basis, _ := strings.Cut(parts[0], ": ")
		return basis
	}
	return strings.Join(parts, "; ")
}

// sections are the token and cost tables: per model, then per cell. A
// study of scripted agents alone (no token, no cost) has none.
func (t *costTally) sections(dir string) []section {
	if tot := t.total; tot.runs == 0 || tot.tok == (cost.Tokens{}) && tot.usd == 0 && tot.rateLimited == 0 {
		return nil
	}
	man, _ := results.ReadManifest(dir) // an imported or bare folder has none: every model reads "no price"
	superseded := 0.0
	_ = results.ReadAttempts(dir, func(r results.Run) error {
		superseded += r.Cost
		return nil
	})
	cols := []string{"runs", "input tokens", "cached input", "cache writes", "output tokens", "reasoning", "estimated", "rate-limited (429)", "cost"}
	cells := func(c *costRow) []string {
		return []string{itoa(c.runs), itoa(c.tok.Input), itoa(c.tok.CachedInput), itoa(c.tok.CacheWrite), itoa(c.tok.Output),
			itoa(c.tok.Reasoning), itoa(c.estimated), itoa(c.rateLimited), cost.Dollars(c.usd)}
	}
	csvCells := func(c *costRow) []string {
		out := cells(c)
		out[len(out)-1] = strconv.FormatFloat(cost.Round(c.usd), 'f', 6, 64)
		return out
	}

	names := make([]string, 0, len(t.models))
	for n := range t.models {
		names = append(names, n)
	}
	sort.Strings(names)
	md := Table{Header: append(append([]string{"model"}, cols...), "priced at")}
	csvT := Table{Header: append(append([]string{"model"}, cols...), "priced_at")}
	for _, n := range names {
		basis := priceBasis(man, n)
		md.add(append(append([]string{n}, cells(t.models[n])...), basis)...)
		csvT.add(append(append([]string{n}, csvCells(t.models[n])...), basis)...)
	}
	md.add(append(append([]string{"all"}, cells(&t.total)...), "")...)
	csvT.add(append(append([]string{"all"}, csvCells(&t.total)...), "")...)

	keys := make([]costCell, 0, len(t.cells))
	for k := range t.cells {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		a, b := keys[i], keys[j]
		for _, p := range [][2]string{{a.model, b.model}, {a.task, b.task}, {a.variant, b.variant}, {a.condition, b.condition}} {
			if p[0] != p[1] {
				return p[0] < p[1]
			}
		}
		return a.defense < b.defense
	})
	head := []string{"model", "task", "variant", "condition", "defense"}
	cellMD := Table{Header: append(append([]string{}, head...), cols...)}
	cellCSV := Table{Header: append(append([]string{}, head...), cols...)}
	for _, k := range keys {
		id := []string{k.model, k.task, k.variant, k.condition, k.defense}
		cellMD.add(append(append([]string{}, id...), cells(t.cells[k])...)...)
		cellCSV.add(append(append([]string{}, id...), csvCells(t.cells[k])...)...)
	}

	intro := "Tokens and cost per model (writer → reader pairs apart), summed over runs.jsonl: the \"all\" row is " +
		"the sum of every run's cost field, " + cost.Dollars(t.total.usd) + ". Input counts the cached input and cache writes " +
		"too, output the reasoning tokens; cost prices each part at its own rate (docs/cost.md), and a run's cost " +
		"includes its earlier tries. \"estimated\" counts runs with a count the provider did not report (estimated " +
		"from the text); scripted reference agents cost nothing."
	if superseded > 0 {
		intro += " Superseded tries in " + filepath.Base(results.AttemptsFile) + " cost " + cost.Dollars(superseded) +
			" more, not in these totals."
	}
	return []section{
		{ID: "cost", Title: "Tokens and cost by model", Intro: intro, Table: md, CSVName: CostModelsFile, CSV: csvT},
		{ID: "cost-cells", Title: "Tokens and cost by cell", Intro: "The same counts per cell (model, task, variant, condition, defense).",
			Table: cellMD, CSVName: CostCellsFile, CSV: cellCSV},
	}
}
