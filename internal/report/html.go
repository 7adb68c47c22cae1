package report

import (
	"bufio"
	"bytes"
	_ "embed"
	"errors"
	"fmt"
	"html/template"
	"io/fs"
	"path/filepath"
	"strings"

	"github.com/killchain/killchain/internal/report/plot"
	"github.com/killchain/killchain/internal/report/runview"
	"github.com/killchain/killchain/internal/results"
	"github.com/killchain/killchain/internal/rooted"
	"github.com/killchain/killchain/internal/sanitize"
)

//go:embed report.html.tmpl
var htmlSource string

// page is the template of report.html: self-contained (inline CSS and SVG,
// no script, nothing loaded from anywhere), one row per picked run linking
// the run's own page (internal/report/runview, whose stylesheet it shares).
var page = template.Must(template.New("report").Funcs(template.FuncMap{
	"svg":   inlineSVG,
	"stage": runview.StageClass,
	"style": runview.Style,
}).Parse(htmlSource))

// htmlPage is what the template's head and tables show.
type htmlPage struct {
	Title    string
	Summary  []string
	Sections []section
	Figures  []plot.Figure
	Picked   []runview.Picked
	Total    int
	AllRuns  bool
	// Pages holds the ids of the listed runs that have a page; the others
	// are shown by `killchain show Study RUN_ID`.
	Pages map[string]bool
	Study string
}

// inlineSVG returns a figure's SVG without its XML prolog, to sit inside the
// HTML. The SVG comes from our own plotting code, never from user input;
// its text labels are escaped by the SVG canvas.
func inlineSVG(f plot.Figure) template.HTML {
	s := string(f.SVG)
	if i := strings.Index(s, "<svg"); i >= 0 {
		s = s[i:]
	}
	return template.HTML(s)
}

// writePages writes the view of each listed run that gets a page as a
// page of its own in runview.Dir of the report folder out, each transcript
// read from the study folder dir, rendered and dropped in turn. The pages
// of an earlier report are removed first.
func writePages(out *rooted.Dir, dir string, picked []runview.Picked, ev *EventStats) error {
	// Only pages are removed: --output may name a folder whose runs/ holds
	// other things.
	stale, err := out.ReadDir(runview.Dir)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("html: %w", err)
	}
	for _, e := range stale {
		if e.Type().IsRegular() && strings.HasSuffix(e.Name(), ".html") {
			if err := out.Remove(filepath.Join(runview.Dir, e.Name())); err != nil {
				return fmt.Errorf("html: %w", err)
			}
		}
	}
	for _, pr := range picked {
		if !pr.Page {
			continue
		}
		if err := runview.WritePage(out, dir, pr, ev.ByRun[pr.Run.RunID]); err != nil {
			return fmt.Errorf("html: %w", err)
		}
	}
	return nil
}

// writeHTML writes report.html into out: the head and tables from p and
// one row per listed run, linking its page when it has one (writePages).
func writeHTML(out *rooted.Dir, p htmlPage) error {
	f, err := out.Create(HTMLFile)
	if err != nil {
		return fmt.Errorf("html: %w", err)
	}
	defer f.Close()
	w := bufio.NewWriterSize(f, 256<<10)
	err = page.ExecuteTemplate(w, "head", p)
	for i := 0; err == nil && i < len(p.Picked); i++ {
		err = page.ExecuteTemplate(w, "runrow", runRow{p.Picked[i], p.Study})
	}
	if err == nil {
		err = page.ExecuteTemplate(w, "tail", p)
	}
	if err == nil {
		err = w.Flush()
	}
	if err == nil {
		err = f.Commit()
	}
	if err != nil {
		return fmt.Errorf("html: %w", err)
	}
	return nil
}

// runRow is one row of the run list: a listed run, and the study folder
// that `killchain show` reads a run without a page from.
type runRow struct {
	runview.Picked
	Study string
}

// reportTitle is the title override or the study names.
func reportTitle(agg *Aggregator, title string) string {
	if title != "" {
		return sanitize.Line(title)
	}
	if s := strings.Join(agg.Studies(), ", "); s != "" {
		return sanitize.Line(s)
	}
	return "(no runs)"
}

// summaryLines are the bullet lines of report.md's header, without the
// Markdown.
func summaryLines(agg *Aggregator, stats results.ReadStats, z float64) []string {
	var b bytes.Buffer
	writeHeader(&b, agg, stats, z)
	var out []string
	for _, l := range strings.Split(b.String(), "\n") {
		if rest, ok := strings.CutPrefix(l, "- "); ok {
			out = append(out, rest)
		}
	}
	return out
}
