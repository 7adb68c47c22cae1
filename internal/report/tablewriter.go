package report

import (
	"encoding/csv"
	"fmt"
	"io"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/killchain/killchain/internal/sanitize"
)

// A table as the report writes it: rows of strings, as an aligned Markdown
// pipe table or as CSV; a view says which columns the Markdown shows.

// Table is a rendered table: strings ready for Markdown or CSV.
type Table struct {
	Header []string
	Rows   [][]string
}

// add appends one row.
func (t *Table) add(cells ...string) { t.Rows = append(t.Rows, cells) }

// drop returns the table without the columns whose header is in names.
func (t Table) drop(names ...string) Table {
	var keep []int
	for i, h := range t.Header {
		if !slices.Contains(names, h) {
			keep = append(keep, i)
		}
	}
	pick := func(row []string) []string {
		out := make([]string, len(keep))
		for j, i := range keep {
			out[j] = row[i]
		}
		return out
	}
	out := Table{Header: pick(t.Header)}
	for _, r := range t.Rows {
		out.Rows = append(out.Rows, pick(r))
	}
	return out
}

// Markdown writes t as a pipe table with aligned columns. An empty table is
// written as a single italic line.
func (t Table) Markdown(w io.Writer) error {
	if len(t.Rows) == 0 {
		_, err := io.WriteString(w, "_No runs._\n")
		return err
	}
	width := make([]int, len(t.Header))
	cell := func(s string) string { return mdEscape(s) }
	for i, h := range t.Header {
		width[i] = max(3, utf8.RuneCountInString(cell(h)))
	}
	for _, r := range t.Rows {
		for i, c := range r {
			width[i] = max(width[i], utf8.RuneCountInString(cell(c)))
		}
	}
	var b strings.Builder
	line := func(cells []string) {
		b.WriteString("|")
		for i, c := range cells {
			c = cell(c)
			b.WriteString(" " + c + strings.Repeat(" ", width[i]-utf8.RuneCountInString(c)) + " |")
		}
		b.WriteString("\n")
	}
	line(t.Header)
	b.WriteString("|")
	for _, n := range width {
		b.WriteString(" " + strings.Repeat("-", n) + " |")
	}
	b.WriteString("\n")
	for _, r := range t.Rows {
		line(r)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// mdEscape keeps a cell on one line, its pipes inside the cell and its
// control characters visible (sanitize.Line).
func mdEscape(s string) string {
	s = sanitize.Line(strings.Join(strings.Fields(s), " "))
	return strings.ReplaceAll(s, "|", `\|`)
}

// CSV writes t with a header line. Every cell goes through
// sanitize.CSVCell: text that a spreadsheet would read as a formula (a
// payload starting with =, a model name starting with @) gets a leading
// quote; numbers, negative deltas included, are written as they are.
func (t Table) CSV(w io.Writer) error {
	cw := csv.NewWriter(w)
	rec := make([]string, 0, len(t.Header))
	for _, row := range append([][]string{t.Header}, t.Rows...) {
		rec = rec[:0]
		for _, c := range row {
			rec = append(rec, sanitize.CSVCell(c))
		}
		if err := cw.Write(rec); err != nil {
			return fmt.Errorf("write csv: %w", err)
		}
	}
	cw.Flush()
	if err := cw.Error(); err != nil {
		return fmt.Errorf("write csv: %w", err)
	}
	return nil
}

// view holds what every table builder needs besides the aggregates.
type view struct {
	z float64
	// splitCondition and splitDefense show the condition and defense columns
	// in Markdown; CSV files always carry them.
	splitCondition bool
	splitDefense   bool
}

// newView decides which columns the Markdown tables show.
func newView(a *Aggregator, z float64) view {
	attacked := func(c Cell) bool { return c.Attacked }
	return view{
		z:              z,
		splitCondition: len(a.Distinct(attacked, func(c Cell) string { return c.Condition })) > 1,
		splitDefense:   len(a.Distinct(nil, func(c Cell) string { return c.Defense })) > 1,
	}
}

// md drops the condition and defense columns the view does not split by.
func (v view) md(t Table) Table {
	var drop []string
	if !v.splitCondition {
		drop = append(drop, "condition")
	}
	if !v.splitDefense {
		drop = append(drop, "defense")
	}
	return t.drop(drop...)
}
