package report

import (
	"bufio"
	"bytes"
	_ "embed"
	"fmt"
	"html/template"
	"os"
	"strings"

	"github.com/killchain/killchain/internal/results"
)

//go:embed report.html.tmpl
var htmlSource string

// page is the HTML template: one self-contained file, inline CSS and SVG,
// no script, nothing loaded from anywhere.
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

// writeHTML writes report.html: the head and tables from p, then one view
// per picked run, each transcript read, rendered and dropped in turn.
func writeHTML(path, dir string, p htmlPage, ev *EventStats) error {
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("html: %w", err)
	}
	w := bufio.NewWriterSize(f, 256<<10)
	err = page.ExecuteTemplate(w, "head", p)
	for i := 0; err == nil && i < len(p.Picked); i++ {
		pr := p.Picked[i]
		var t *results.Transcript
		if t, err = readTranscript(dir, pr.run.RunID); err != nil {
			break
		}
		err = page.ExecuteTemplate(w, "run", buildRunView(pr.run, pr.why, t, ev.ByRun[pr.run.RunID]))
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
