// Package report turns a study folder into tables: report/report.md for
// people and one CSV per table for further analysis.
//
// It reads runs.jsonl once per report through results.ReadLatest (the
// last line of each run id wins, so a resumed study counts each run once),
// feeds every run to an Aggregator that keeps only counters per Cell, and
// renders tables from rollups of those counters. Errored runs are excluded
// from every rate and counted apart.
//
// Beside the tables: rates.go writes every count and rate; figures.go says
// which figures to draw, from which counts, and internal/report/plot draws
// them; report.html's page per run, and the text of the show command, are
// internal/report/runview's.
package report

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"path/filepath"
	"strconv"
	"strings"

	"golang.org/x/sync/errgroup"

	"github.com/killchain/killchain/internal/report/plot"
	"github.com/killchain/killchain/internal/report/runview"
	"github.com/killchain/killchain/internal/results"
	"github.com/killchain/killchain/internal/rooted"
	"github.com/killchain/killchain/internal/sanitize"
	"github.com/killchain/killchain/internal/stats"
	"github.com/killchain/killchain/internal/vocab"
)

// Options tune a report. The zero value is ready to use.
type Options struct {
	// Z is the normal quantile of the Wilson intervals; 0 means stats.Z95 (95%).
	Z float64
	// MaxRunIDs bounds each list of run ids in report.md; 0 means 20.
	MaxRunIDs int
	// OutDir is where the files go; "" means DIR/report.
	OutDir string
	// MaxRunViews: a study with at most this many runs lists every run in
	// report.html's run list; a larger one lists the flagged runs (at
	// most MaxRunViews) and a sample. 0 means 3000; negative means none.
	MaxRunViews int
	// Sample is how many unflagged runs a large study lists; 0 means 200.
	Sample int
	// PerCell and MaxPages say which listed runs get a page of their own
	// (runs/<run_id>.html): every one that errored, was flagged or
	// executed, and the first PerCell of each cell, at most MaxPages in
	// all, spread over the cells. The others are listed with the command
	// that shows them. 0 means 2 and 1000; negative means none.
	PerCell, MaxPages int
	// NoFigures skips the figures (and so the HTML report's figures).
	NoFigures bool
	// NoHTML skips report.html.
	NoHTML bool
	// Title replaces the study names in the report's title.
	Title string

	// analysis adds the forensic sections and figure inputs; set by Write
	// from the study folder.
	analysis analyzer
}

func (o Options) withDefaults(dir string) Options {
	if o.Z == 0 {
		o.Z = stats.Z95
	}
	if o.MaxRunIDs == 0 {
		o.MaxRunIDs = 20
	}
	if o.MaxRunViews == 0 {
		o.MaxRunViews = 3000
	}
	if o.Sample == 0 {
		o.Sample = 200
	}
	if o.PerCell == 0 {
		o.PerCell = 2
	}
	if o.MaxPages == 0 {
		o.MaxPages = 1000
	}
	return o
}

// File names written into the report folder besides the sections' CSVs.
const (
	ASRFile      = "asr_by_model.csv"
	StagesFile   = "stages.csv"
	GoalFile     = "goal_vs_executed.csv"
	NoticedFile  = "noticed.csv"
	ErrorsFile   = "errors.csv"
	MarkdownFile = "report.md"
	HTMLFile     = "report.html"
	FiguresDir   = "figures"
)

// Write reads the study folder dir (runs.jsonl, events.jsonl and, for the
// per-run views only, transcripts/) and writes into opts.OutDir (dir/report
// by default) report.md, one CSV per table, figures/*.svg and *.png, and
// the self-contained report.html. It streams: memory holds counters per
// cell, a hash and offset per run id, and the runs picked for per-run views.
func Write(dir string, opts Options) error {
	return write(dir, opts)
}

func write(dir string, opts Options) error {
	opts = opts.withDefaults(dir)
	if opts.Z < 0 || opts.MaxRunIDs < 0 || opts.Sample < 0 {
		return fmt.Errorf("report: z, max run ids and sample must not be negative")
	}
	agg := NewAggregator(opts.MaxRunIDs)
	pick := runview.NewPicker(runview.Picking{All: opts.MaxRunViews, Sample: opts.Sample, PerCell: opts.PerCell, MaxPages: opts.MaxPages})
	an := opts.analysis
	if an == nil {
		an = newAnalyzer(dir)
	}
	rh := newRewardTally()
	ct := newCostTally()
	ad := newAdaptiveTally()
	st := newSuiteTally()
	detail := results.Flat
	if an.wantsForensics() {
		detail = results.NoProvenance
	}
	stats, err := results.ReadLatest(context.Background(), filepath.Join(dir, results.RunsFile), results.ReadOptions{Detail: detail}, func(r *results.Run) error {
		agg.add(r)
		rh.add(r)
		ct.add(r)
		ad.add(r)
		st.add(r)
		why := an.add(r)
		pick.Add(r, why)
		return nil
	})
	if err != nil {
		return fmt.Errorf("report: %w", err)
	}
	picked := pick.Result()
	ids := make(map[string]bool, len(picked))
	for _, p := range picked {
		if p.Page {
			ids[p.Run.RunID] = true
		}
	}
	// The events and what the runs add up to (the analysis's fits, the
	// attacker's rounds, the probes) are independent: one is read while
	// the other is worked out.
	var (
		ev                 *EventStats
		extra              []section
		extras             Extras
		probeSecs          []section
		probeFigs          []plot.Figure
		side, pagesWritten errgroup.Group
		evPath             = filepath.Join(dir, results.EventsFile)
	)
	side.Go(func() (err error) {
		ev, err = readEvents(evPath, func(id string) bool { return ids[id] })
		return err
	})
	side.Go(func() (err error) {
		extra, extras = an.finish(opts.MaxRunIDs)
		if len(ad.cells) > 0 {
			if err := ad.readAttacker(dir); err != nil {
				return err
			}
		}
		probeSecs, probeFigs, err = probesReport(dir, !opts.NoFigures)
		return err
	})
	if err := side.Wait(); err != nil {
		return fmt.Errorf("report: %w", err)
	}
	out, err := rooted.OpenOut(dir, "report", opts.OutDir)
	if err != nil {
		return fmt.Errorf("report: %w", err)
	}
	defer out.Close()
	if !opts.NoHTML {
		// The run pages need the runs and their events only: they are
		// written while the tables and figures are made.
		pagesWritten.Go(func() error { return writePages(out, dir, picked, ev) })
	}
	extra = append(append(rh.sections(opts.Z), ad.sections(opts.Z)...), extra...)
	extra = append(extra, ct.sections(dir)...)
	extra = append(extra, probeSecs...)
	if defs, ok := taskDefsSection(dir); ok {
		extra = append(extra, defs)
	}
	secs := append(st.sections(opts.Z), buildSections(agg, ev, extra, opts.Z)...)
	figs, err := writeTables(out, opts, agg, stats, secs, extras, probeFigs, ad, st)
	if werr := pagesWritten.Wait(); err == nil && werr != nil {
		err = fmt.Errorf("report: %w", werr)
	}
	if err != nil || opts.NoHTML {
		return err
	}
	page := htmlPage{
		Title: reportTitle(agg, opts.Title), Summary: summaryLines(agg, stats, opts.Z), Sections: secs,
		Figures: figs, Picked: picked, Total: stats.Runs, AllRuns: stats.Runs <= opts.MaxRunViews,
		Pages: ids, Study: dir,
	}
	if err := writeHTML(out, page); err != nil {
		return fmt.Errorf("report: %w", err)
	}
	return nil
}

// writeTables writes report.md, the CSVs and the figures into the report
// folder out and returns the figures.
func writeTables(out *rooted.Dir, opts Options, agg *Aggregator, stats results.ReadStats, secs []section, extras Extras, probeFigs []plot.Figure,
	ad *adaptiveTally, st *suiteTally) ([]plot.Figure, error) {
	files, err := renderTables(agg, stats, secs, opts.Z)
	if err != nil {
		return nil, fmt.Errorf("report: %w", err)
	}
	var figs []plot.Figure
	if !opts.NoFigures {
		if figs, err = buildFigures(agg, extras, opts.Z); err != nil {
			return nil, fmt.Errorf("report: %w", err)
		}
		suiteFigs, err := st.figures()
		if err != nil {
			return nil, fmt.Errorf("report: %w", err)
		}
		figs = append(append(figs, suiteFigs...), probeFigs...)
		adFigs, err := ad.figures(opts.Z)
		if err != nil {
			return nil, fmt.Errorf("report: %w", err)
		}
		figs = append(figs, adFigs...)
		for _, f := range figs {
			files[filepath.Join(FiguresDir, f.Name+".svg")] = f.SVG
			files[filepath.Join(FiguresDir, f.Name+".png")] = f.PNG
		}
	}
	for _, name := range sortedKeys(files) {
		if err := out.WriteFile(name, files[name]); err != nil {
			return nil, fmt.Errorf("report: %w", err)
		}
	}
	return figs, nil
}

// Render builds report.md and the CSV tables from an Aggregator, keyed by
// file name. stats describes the read (superseded lines are mentioned).
func Render(agg *Aggregator, stats results.ReadStats, z float64) (map[string][]byte, error) {
	return renderTables(agg, stats, buildSections(agg, nil, nil, z), z)
}

// renderTables writes the sections into report.md and their CSV files.
func renderTables(agg *Aggregator, stats results.ReadStats, secs []section, z float64) (map[string][]byte, error) {
	files := make(map[string][]byte)
	var md bytes.Buffer
	writeHeader(&md, agg, stats, z)
	for _, s := range secs {
		if s.CSVName != "" {
			var b bytes.Buffer
			if err := s.CSV.CSV(&b); err != nil {
				return nil, fmt.Errorf("%s: %w", s.CSVName, err)
			}
			files[s.CSVName] = b.Bytes()
		}
		fmt.Fprintf(&md, "\n## %s\n\n%s\n\n", sanitize.Line(s.Title), sanitize.Line(s.Intro))
		if err := s.Table.Markdown(&md); err != nil {
			return nil, err
		}
		for _, l := range s.Lists {
			writeIDs(&md, l.Title, l.IDs)
		}
	}
	files[MarkdownFile] = md.Bytes()
	return files, nil
}

func contaminationIntro(bad int) string {
	const what = "Clean controls carry no canary: a canary-shaped string, an Executed stage or a reached attack " +
		"goal in one means a leak between runs or a broken verifier."
	if bad == 0 {
		return what + " None was found."
	}
	findings := strconv.Itoa(bad) + " findings"
	if bad == 1 {
		findings = "1 finding"
	}
	return what + " **Warning: " + findings + "; this study's rates are suspect until explained.**"
}

// writeHeader writes the title and the study summary.
func writeHeader(w io.Writer, agg *Aggregator, stats results.ReadStats, z float64) {
	studies := agg.Studies()
	title := sanitize.Line(strings.Join(studies, ", "))
	if title == "" {
		title = "(no runs)"
	}
	attacked, clean := 0, 0
	for _, c := range agg.Cells() {
		n := agg.Counts(c).Runs
		if c.Attacked {
			attacked += n
		} else {
			clean += n
		}
	}
	list := func(field func(Cell) string) string {
		vals := agg.DistinctAll(nil, field)
		for i, s := range vals {
			vals[i] = sanitize.Line(s)
			if s == "" {
				vals[i] = `""`
			}
		}
		return strings.Join(vals, ", ")
	}
	fmt.Fprintf(w, "# Kill-chain report: %s\n\n", title)
	fmt.Fprintf(w, "- Study: %s\n", title)
	fam := agg.Families()
	if rh := fam[vocab.FamilyRewardHack]; rh > 0 {
		fmt.Fprintf(w, "- Runs: %d: %d injection (%d attacked, %d clean controls), %d reward-hack; %d errored\n",
			agg.Total(), fam[vocab.FamilyInjection], attacked, clean, rh, agg.Errored())
		fmt.Fprintf(w, "- Every injection table and figure counts injection runs only; reward-hack runs are counted in "+
			"the reward-hack section alone (errors of both families are in the error tables).\n")
	} else {
		fmt.Fprintf(w, "- Runs: %d (%d attacked, %d clean controls, %d errored)\n",
			agg.Total(), attacked, clean, agg.Errored())
	}
	if kinds := errorKindSummary(agg); kinds != "" {
		fmt.Fprintf(w, "- Errored runs by kind: %s (see Errors by model and kind).\n", kinds)
	}
	fmt.Fprintf(w, "- Errored runs are excluded from every rate and counted apart (see Errors).\n")
	if stats.Superseded > 0 {
		fmt.Fprintf(w, "- runs.jsonl holds %d lines; %d were superseded by a later line for the same run id "+
			"(a resumed run) and only the last counts.\n", stats.Lines, stats.Superseded)
	}
	fmt.Fprintf(w, "- Tasks: %s\n", list(func(c Cell) string { return c.Task }))
	fmt.Fprintf(w, "- Conditions: %s; defenses: %s\n",
		list(func(c Cell) string { return c.Condition }), list(func(c Cell) string { return c.Defense }))
	fmt.Fprintf(w, "- Intervals: Wilson score interval, %s (z = %s), shown as rate (lo–hi); k/n are counts of runs.\n",
		ciLabel(z), strconv.FormatFloat(z, 'f', 2, 64))
}

// writeIDs lists the kept run ids of l, if any.
func writeIDs(w io.Writer, title string, l *IDList) {
	if l.Total == 0 {
		return
	}
	items := l.Items()
	fmt.Fprintf(w, "\n%s: %d", title, l.Total)
	if len(items) < l.Total {
		fmt.Fprintf(w, " (the first %d by run id)", len(items))
	}
	fmt.Fprintf(w, "\n\n")
	for _, it := range items {
		fmt.Fprintf(w, "- `%s`: %s\n", sanitize.Line(it.RunID), sanitize.Line(it.Note))
	}
}
