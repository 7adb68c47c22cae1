package runview

import (
	"bytes"
	_ "embed"
	"html/template"
	"path/filepath"

	"github.com/killchain/killchain/internal/results"
	"github.com/killchain/killchain/internal/rooted"
	"github.com/killchain/killchain/internal/vocab"
)

//go:embed run.html.tmpl
var pageSource string

//go:embed style.css
var css string

// page is the template of a run's page: self-contained (inline CSS, no
// script, nothing loaded from anywhere), linking the report back.
var page = template.Must(template.New("runview").Funcs(template.FuncMap{
	"flag":  flagText,
	"stage": StageClass,
	"style": Style,
}).Parse(pageSource))

// Style is the stylesheet of the report's pages, report.html's and each
// run's, as a style element.
func Style() template.HTML { return template.HTML("<style>\n" + css + "</style>") }

// StageClass is the CSS class (of Style) of a stage's or a signal's badge.
func StageClass(s string) string {
	if _, ok := signalRank[s]; ok || s == "none" {
		return "c-" + s
	}
	return "c-seen"
}

// Dir is the folder of the report that holds one page per run view
// (runs/<run_id>.html), so that report.html stays light however many runs
// a study has: it lists each run in one row that links its page.
const Dir = "runs"

// pageName is the name of a run's page in the report folder.
func pageName(runID string) (string, error) {
	// A run id that names a transcript safely names a page safely.
	if _, err := results.TranscriptPath(".", runID); err != nil {
		return "", err
	}
	return filepath.Join(Dir, runID+".html"), nil
}

// WritePage writes a picked run's page into Dir of the report folder out,
// from its transcript in the study folder dir and its events evs.
func WritePage(out *rooted.Dir, dir string, p Picked, evs []vocab.Event) error {
	name, err := pageName(p.Run.RunID)
	if err != nil {
		return err
	}
	t, err := readTranscript(dir, p.Run.RunID)
	if err != nil {
		return err
	}
	var b bytes.Buffer
	if err := page.ExecuteTemplate(&b, "runpage", buildRunView(p.Run, p.Why, t, evs)); err != nil {
		return err
	}
	return out.WriteFile(name, b.Bytes())
}
