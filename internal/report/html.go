package report

import (
	"bufio"
	"bytes"
	_ "embed"
	"fmt"
	"html/template"
	"os"
	"path/filepath"
	"strings"

	"github.com/killchain/killchain/internal/results"
	"github.com/killchain/killchain/internal/vocab"
)

//go:embed report.html.tmpl
var htmlSource string

// page is the HTML template: report.html and each run's page, every one
// self-contained (inline CSS and SVG, no script, nothing loaded from
// anywhere) and linking the others.
var page = template.Must(template.New("report").Funcs(template.FuncMap{
	"svg":   inlineSVG,
	"flag":  flagText,
	"stage": stageClass,
}).Parse(htmlSource))

// htmlPage is what the template's head and tables show.
type htmlPage struct {
	Title    string
	Summary  []string
	Sections []section
	Figures  []Figure
	Picked   []pickedRun
	Total    int
	AllRuns  bool
}

// inlineSVG returns a figure's SVG without its XML prolog, to sit inside the
// HTML. The SVG comes from our own plotting code, never from user input;
// its text labels are escaped by the SVG canvas.
func inlineSVG(f Figure) template.HTML {
	s := string(f.SVG)
	if i := strings.Index(s, "<svg"); i >= 0 {
		s = s[i:]
	}
	return template.HTML(s)
}

// flagText shows a nullable stage flag.
func flagText(b *bool) string {
	switch {
	case b == nil:
		return naCell
	case *b:
		return "yes"
	}
	return "no"
}

// stageClass is the CSS class of a stage badge.
func stageClass(s string) string {
	if _, ok := signalRank[s]; ok || s == "none" {
		return "c-" + s
	}
	return "c-seen"
}

// RunsDir is the folder of the report that holds one page per run view
// (runs/<run_id>.html), so that report.html stays light however many runs
// a study has: it lists each run in one row that links its page.
const RunsDir = "runs"

// writeHTML writes report.html, the head and tables from p and one row per
// picked run, and each picked run's view as a page of its own in RunsDir
// beside it, each transcript read, rendered and dropped in turn. The pages
// of an earlier report are removed first.
func writeHTML(path, dir string, p htmlPage, ev *EventStats) error {
	runsDir := filepath.Join(filepath.Dir(path), RunsDir)
	// Only pages are removed: --output may name a folder whose runs/ holds
	// other things.
	stale, _ := filepath.Glob(filepath.Join(runsDir, "*.html"))
	for _, f := range stale {
		if err := os.Remove(f); err != nil {
			return fmt.Errorf("html: %w", err)
		}
	}
	if len(p.Picked) > 0 {
		if err := os.MkdirAll(runsDir, 0o755); err != nil {
			return fmt.Errorf("html: %w", err)
		}
	}
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("html: %w", err)
	}
	w := bufio.NewWriterSize(f, 256<<10)
	err = page.ExecuteTemplate(w, "head", p)
	for i := 0; err == nil && i < len(p.Picked); i++ {
		pr := p.Picked[i]
		if err = writeRunPage(runsDir, dir, pr, ev.ByRun[pr.run.RunID]); err == nil {
			err = page.ExecuteTemplate(w, "runrow", runView{Run: pr.run, Why: pr.why})
		}
	}
	if err == nil {
		err = page.ExecuteTemplate(w, "tail", p)
	}
	if err == nil {
		err = w.Flush()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("html: %w", err)
	}
	return nil
}

// RunPage is the path of a run's page in the report folder out.
func RunPage(out, runID string) (string, error) {
	// A run id that names a transcript safely names a page safely.
	if _, err := results.TranscriptPath(out, runID); err != nil {
		return "", err
	}
	return filepath.Join(out, RunsDir, runID+".html"), nil
}

// writeRunPage writes a picked run's view into runsDir.
func writeRunPage(runsDir, dir string, pr pickedRun, evs []vocab.Event) error {
	path, err := RunPage(filepath.Dir(runsDir), pr.run.RunID)
	if err != nil {
		return err
	}
	t, err := readTranscript(dir, pr.run.RunID)
	if err != nil {
		return err
	}
	var b bytes.Buffer
	if err := page.ExecuteTemplate(&b, "runpage", buildRunView(pr.run, pr.why, t, evs)); err != nil {
		return err
	}
	return os.WriteFile(path, b.Bytes(), 0o644)
}

// reportTitle is the title override or the study names.
func reportTitle(agg *Aggregator, title string) string {
	if title != "" {
		return title
	}
	if s := strings.Join(agg.Studies(), ", "); s != "" {
		return s
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
