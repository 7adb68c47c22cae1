package report

import (
	"encoding/csv"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/killchain/killchain/internal/stats"
)

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

// mdEscape keeps a cell on one line and its pipes inside the cell.
func mdEscape(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	return strings.ReplaceAll(s, "|", `\|`)
}

// CSV writes t with a header line.
func (t Table) CSV(w io.Writer) error {
	cw := csv.NewWriter(w)
	if err := cw.Write(t.Header); err != nil {
		return fmt.Errorf("write csv: %w", err)
	}
	if err := cw.WriteAll(t.Rows); err != nil {
		return fmt.Errorf("write csv: %w", err)
	}
	return nil
}

// Formatting of counts and rates. Markdown shows percentages with one
// decimal; CSV holds raw counts and fractions with four decimals, empty where
// there is nothing to divide.

// naCell marks a stage that does not apply to the runs' mode.
const naCell = "n/a"

// noneCell marks a rate with no runs to divide by.
const noneCell = "—"

func itoa(n int) string { return strconv.Itoa(n) }

// kn is "k/n".
func kn(k, n int) string { return itoa(k) + "/" + itoa(n) }

// pct is k/n as a percentage with one decimal, or noneCell when n is 0.
func pct(k, n int) string {
	if n == 0 {
		return noneCell
	}
	return pctf(float64(k) / float64(n))
}

func pctf(x float64) string { return strconv.FormatFloat(100*x, 'f', 1, 64) + "%" }

// rateCI is "p% (lo–hi)" with the Wilson interval at z, or noneCell when n is 0.
func rateCI(k, n int, z float64) string {
	if n == 0 {
		return noneCell
	}
	lo, hi := stats.Wilson(k, n, z)
	return pct(k, n) + " (" + strconv.FormatFloat(100*lo, 'f', 1, 64) + "–" +
		strconv.FormatFloat(100*hi, 'f', 1, 64) + ")"
}

// frac is k/n with four decimals, or "" when n is 0.
func frac(k, n int) string {
	if n == 0 {
		return ""
	}
	return fnum(float64(k) / float64(n))
}

func fnum(x float64) string {
	if math.IsNaN(x) {
		return ""
	}
	return strconv.FormatFloat(x, 'f', 4, 64)
}

// csvRate is the k, n, rate, lo and hi columns of a rate; rate and interval
// are empty where n is 0.
func csvRate(r Rate, z float64) []string {
	if r.N == 0 {
		return []string{itoa(r.K), "0", "", "", ""}
	}
	lo, hi := stats.Wilson(r.K, r.N, z)
	return []string{itoa(r.K), itoa(r.N), frac(r.K, r.N), fnum(lo), fnum(hi)}
}
