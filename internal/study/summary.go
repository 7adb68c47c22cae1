package study

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/killchain/killchain/internal/plural"
)

// Count is a number of runs under one key.
type Count struct {
	Key   string
	Runs  int
	Cells int
}

// GridCount is the number of runs of one grid.
type GridCount struct {
	Grid, Batch string
	Runs, Cells int
}

// PlanSummary counts a plan's runs along each axis; every list follows the
// order of first appearance in the plan.
type PlanSummary struct {
	Total, Cells              int
	Attacked, Clean           int // runs
	AttackedCells, CleanCells int
	Grids                     []GridCount
	Batches                   []Count
	Tasks                     []Count
	Surfaces                  []Count
	Families                  []Count // "text-surface", "PDF", "audio": the medium of the surface
	Models                    []Count // a model alone, or a "writer→reader" pair
	Conditions                []Count
	Defenses                  []Count
	// Attacks counts attacked runs per attack (the attack library's, or
	// the task's own variant); nil when no run plants a library attack.
	Attacks  []Count
	CellRuns []Count // every cell
}

// counter accumulates ordered counts.
type counter struct {
	order []string
	runs  map[string]int
	cells map[string]int
}

func newCounter() *counter {
	return &counter{runs: map[string]int{}, cells: map[string]int{}}
}

func (c *counter) add(key string, newCell bool) {
	if _, ok := c.runs[key]; !ok {
		c.order = append(c.order, key)
	}
	c.runs[key]++
	if newCell {
		c.cells[key]++
	}
}

func (c *counter) list() []Count {
	out := make([]Count, len(c.order))
	for i, k := range c.order {
		out[i] = Count{Key: k, Runs: c.runs[k], Cells: c.cells[k]}
	}
	return out
}

// SurfaceFamily is the medium a surface belongs to: "PDF" for the PDF
// surfaces, "audio" for speech, "text-surface" for the rest (web page,
// memory, tool result), as the paper splits its runs.
func SurfaceFamily(surface string) string {
	switch {
	case strings.HasPrefix(surface, "pdf"):
		return "PDF"
	case strings.HasPrefix(surface, "audio"):
		return "audio"
	}
	return "text-surface"
}

// Summary counts runs per grid and batch, task, surface, model or pair,
// condition, defense and cell, and attacked against clean.
func Summary(runs []Run) PlanSummary {
	var s PlanSummary
	grids, batches, taskC, surfaces := newCounter(), newCounter(), newCounter(), newCounter()
	models, conds, defs, cells := newCounter(), newCounter(), newCounter(), newCounter()
	families, atks := newCounter(), newCounter()
	library := false
	gridBatch := map[string]string{}
	for _, r := range runs {
		_, seen := cells.runs[r.Cell]
		newCell := !seen
		s.Total++
		if r.Attacked {
			s.Attacked++
		} else {
			s.Clean++
		}
		if newCell {
			s.Cells++
			if r.Attacked {
				s.AttackedCells++
			} else {
				s.CleanCells++
			}
		}
		gridBatch[r.Grid] = r.Batch
		grids.add(r.Grid, newCell)
		batches.add(r.Batch, newCell)
		taskC.add(r.Task, newCell)
		surfaces.add(r.Surface, newCell)
		families.add(SurfaceFamily(r.Surface), newCell)
		models.add(r.Models(), newCell)
		conds.add(r.Condition, newCell)
		defs.add(r.Defense, newCell)
		cells.add(r.Cell, newCell)
		if r.Attacked {
			atks.add(r.AttackName(), newCell)
			library = library || r.Attack != ""
		}
	}
	if library {
		s.Attacks = atks.list()
	}
	for _, g := range grids.list() {
		s.Grids = append(s.Grids, GridCount{Grid: g.Key, Batch: gridBatch[g.Key], Runs: g.Runs, Cells: g.Cells})
	}
	s.Batches, s.Tasks, s.Surfaces, s.Families = batches.list(), taskC.list(), surfaces.list(), families.list()
	s.Models, s.Conditions, s.Defenses, s.CellRuns = models.list(), conds.list(), defs.list(), cells.list()
	return s
}

// WritePlan prints a plan's summary; verbose also lists every cell with
// its number of runs.
func WritePlan(w io.Writer, runs []Run, verbose bool) error {
	s := Summary(runs)
	out := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	total := func(label string, runs, cells int) {
		fmt.Fprintf(out, "%s\t%s\t%s\n", label, plural.Count(runs, "run"), plural.Count(cells, "cell"))
	}
	total("total", s.Total, s.Cells)
	total("attacked", s.Attacked, s.AttackedCells)
	total("clean", s.Clean, s.CleanCells)
	for _, f := range s.Families {
		total(f.Key, f.Runs, f.Cells)
	}
	fmt.Fprintf(out, "\ngrid\tbatch\truns\tcells\n")
	for _, g := range s.Grids {
		fmt.Fprintf(out, "%s\t%s\t%d\t%d\n", g.Grid, g.Batch, g.Runs, g.Cells)
	}
	sections := []struct {
		title string
		list  []Count
	}{
		{"batch", s.Batches}, {"task", s.Tasks}, {"surface", s.Surfaces}, {"model", s.Models},
		{"condition", s.Conditions}, {"defense", s.Defenses}, {"attack", s.Attacks},
	}
	for _, sec := range sections {
		if sec.list == nil && sec.title == "attack" {
			continue // a plan without library attacks prints as before
		}
		fmt.Fprintf(out, "\n%s\truns\tcells\n", sec.title)
		for _, c := range sec.list {
			fmt.Fprintf(out, "%s\t%d\t%d\n", c.Key, c.Runs, c.Cells)
		}
	}
	if verbose {
		fmt.Fprintf(out, "\ncell\truns\n")
		for _, c := range s.CellRuns {
			fmt.Fprintf(out, "%s\t%d\n", c.Key, c.Runs)
		}
	}
	if err := out.Flush(); err != nil {
		return fmt.Errorf("write plan: %w", err)
	}
	return nil
}
