package report

import (
	"bytes"
	"encoding/xml"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"golang.org/x/net/html"

	"github.com/killchain/killchain/internal/report/runview"
	"github.com/killchain/killchain/internal/testenv"
)

// reportDir writes the smoke fixture's report; KILLCHAIN_REPORT_DIR keeps a
// copy of the study folder there for a look by hand.
func reportDir(t *testing.T) string {
	t.Helper()
	dir := copyFixture(t, "smoke")
	if keep := os.Getenv("KILLCHAIN_REPORT_DIR"); keep != "" {
		dir = keep
		if err := os.CopyFS(dir, os.DirFS(copyFixture(t, "smoke"))); err != nil && !os.IsExist(err) {
			t.Fatal(err)
		}
	}
	if err := Write(dir, Options{}); err != nil {
		t.Fatal(err)
	}
	return filepath.Join(dir, "report")
}

// loads matches what a browser would fetch: src, href, xlink:href, CSS url()
// and @import. Namespace URIs (xmlns) are names, never loaded.
var loads = regexp.MustCompile(`(?i)(\bsrc\s*=|\bhref\s*=\s*["']?\s*(https?:|//)|url\(|@import)`)

// TestHTMLSelfContained: report.html and every run's page load nothing,
// hold no script and are well-formed; report.html lists every run in a row
// linking its page, and the pages mark the canary at each stage.
func TestHTMLSelfContained(t *testing.T) {
	out := reportDir(t)
	counts := map[string]int{}
	marks := map[string]int{}
	var links []string
	data, err := os.ReadFile(filepath.Join(out, HTMLFile))
	if err != nil {
		t.Fatal(err)
	}
	checkPage(t, HTMLFile, data, counts, marks, &links)
	pages, err := filepath.Glob(filepath.Join(out, runview.Dir, "*.html"))
	if err != nil {
		t.Fatal(err)
	}
	if counts["run"] != 0 {
		t.Errorf("report.html holds %d run views; they belong in %s/", counts["run"], runview.Dir)
	}
	for _, p := range pages {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		var back []string
		checkPage(t, filepath.Base(p), data, counts, marks, &back)
		if !slices.Contains(back, "../"+HTMLFile) {
			t.Errorf("%s does not link back to the report (%v)", filepath.Base(p), back)
		}
	}
	runs := len(rawRuns(t, "smoke"))
	if counts["run"] != runs || len(pages) != runs {
		t.Errorf("%d run views in %d pages, want every run (%d)", counts["run"], len(pages), runs)
	}
	for _, p := range pages {
		if !slices.Contains(links, runview.Dir+"/"+filepath.Base(p)) {
			t.Errorf("report.html does not link %s", filepath.Base(p))
		}
	}
	if counts["svg"] < 4 {
		t.Errorf("%d inline figures, want at least 4", counts["svg"])
	}
	// The fixture's transcripts include an executed relay: the canary must
	// be marked at each stage it reached.
	for _, c := range []string{"c-exposed", "c-persisted", "c-relayed", "c-executed", "c-noticed"} {
		if marks[c] == 0 {
			t.Errorf("no canary marked %s (marks: %v)", c, marks)
		}
	}
}

// checkPage checks that a page loads nothing, holds no script and closes
// every element it opens in order, and counts its elements, canary marks
// and links.
func checkPage(t *testing.T, name string, data []byte, counts, marks map[string]int, links *[]string) {
	t.Helper()
	if m := loads.Find(data); m != nil {
		i := bytes.Index(data, m)
		t.Errorf("%s would load something: %q", name, data[max(0, i-60):min(len(data), i+60)])
	}
	if bytes.Contains(data, []byte("<script")) {
		t.Errorf("%s holds a script", name)
	}

	// Well-formed: the tokenizer reaches EOF, and every element we open is
	// closed in order (void elements aside).
	z := html.NewTokenizer(bytes.NewReader(data))
	var stack []string
	void := map[string]bool{"meta": true, "col": true, "br": true, "img": true, "input": true, "link": true, "hr": true}
	svgDepth := 0
	for {
		tt := z.Next()
		if tt == html.ErrorToken {
			if z.Err() != io.EOF {
				t.Fatalf("%s: tokenizer: %v", name, z.Err())
			}
			break
		}
		tn, _ := z.TagName()
		tag := string(tn)
		switch tt {
		case html.StartTagToken:
			if tag == "svg" {
				svgDepth++
			}
			if !void[tag] {
				stack = append(stack, tag)
			}
		case html.EndTagToken:
			if tag == "svg" {
				svgDepth--
			}
			if len(stack) == 0 || stack[len(stack)-1] != tag {
				t.Fatalf("%s: </%s> closes %v", name, tag, stack[max(0, len(stack)-3):])
			}
			stack = stack[:len(stack)-1]
		}
	}
	if len(stack) != 0 || svgDepth != 0 {
		t.Fatalf("%s: unclosed elements: %v", name, stack)
	}

	doc, err := html.Parse(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	var walk func(n *html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.ElementNode {
			counts[n.Data]++
			for _, a := range n.Attr {
				switch {
				case n.Data == "mark" && a.Key == "class":
					marks[a.Val]++
				case n.Data == "details" && a.Key == "class" && a.Val == "run":
					counts["run"]++
				case n.Data == "a" && a.Key == "href":
					*links = append(*links, a.Val)
				}
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(doc)
}

func TestFiguresWellFormed(t *testing.T) {
	out := reportDir(t)
	for _, name := range []string{FigStages, FigSurface, FigPairs, FigTradeoff} {
		t.Run(name, func(t *testing.T) {
			svg, err := os.ReadFile(filepath.Join(out, FiguresDir, name+".svg"))
			if err != nil {
				t.Fatal(err)
			}
			d := xml.NewDecoder(bytes.NewReader(svg))
			texts := 0
			for {
				tok, err := d.Token()
				if err == io.EOF {
					break
				}
				if err != nil {
					t.Fatalf("svg: %v", err)
				}
				if se, ok := tok.(xml.StartElement); ok && se.Name.Local == "text" {
					texts++
				}
			}
			if texts < 5 {
				t.Errorf("%d text elements", texts)
			}
			png, err := os.ReadFile(filepath.Join(out, FiguresDir, name+".png"))
			if err != nil || !bytes.HasPrefix(png, []byte("\x89PNG")) {
				t.Errorf("png: %v", err)
			}
		})
	}
	// Deterministic: a second report writes the same bytes.
	again := reportDir(t)
	for _, name := range []string{FigSurface + ".svg", FigPairs + ".svg", FigStages + ".png"} {
		a, _ := os.ReadFile(filepath.Join(out, FiguresDir, name))
		b, _ := os.ReadFile(filepath.Join(again, FiguresDir, name))
		if !bytes.Equal(a, b) {
			t.Errorf("%s differs between two reports", name)
		}
	}
	// The heat map carries each cell's k/n.
	svg, _ := os.ReadFile(filepath.Join(out, FiguresDir, FigSurface+".svg"))
	for _, want := range []string{"18/18", "0/9", "web_page+memory"} {
		if !bytes.Contains(svg, []byte(want)) {
			t.Errorf("heat map lacks %q", want)
		}
	}
}

// netURL finds the URLs of Chromium's net log.
var netURL = regexp.MustCompile(`"url":"([a-z]+://[^"]*)"`)

// browserOwn matches the requests Chromium makes for itself whatever the
// page (time, updates, accounts, dictionaries) despite the flags.
var browserOwn = regexp.MustCompile(`^https?://([a-z0-9-]+\.)*(google\.com|googleapis\.com|gvt1\.com|gstatic\.com)/`)

// TestHTMLInChromium opens report.html in headless Chromium, when it is
// installed (CI does not install it), and fails on any console message of
// level error or any request that is not the file itself.
func TestHTMLInChromium(t *testing.T) {
	bin := ""
	for _, b := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(b); err == nil {
			bin = p
			break
		}
	}
	if bin == "" {
		testenv.Need(t, errors.New("no chromium on PATH (make deps installs it)"), "a headless browser")
	}
	out := reportDir(t)
	page := "file://" + filepath.Join(out, HTMLFile)
	tmp := t.TempDir()
	shot, netlog := filepath.Join(tmp, "r.png"), filepath.Join(tmp, "net.json")
	// The browser's own background services are switched off as far as
	// flags allow, and every host name resolves to nothing: a request of
	// the page would show in the net log.
	cmd := exec.Command(bin, "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
		"--disable-component-update", "--disable-sync", "--disable-default-apps", "--no-first-run",
		"--disable-extensions", "--disable-domain-reliability", "--host-resolver-rules=MAP * ~NOTFOUND",
		"--enable-logging=stderr", "--v=0", "--log-net-log="+netlog, "--user-data-dir="+filepath.Join(tmp, "ud"),
		"--screenshot="+shot, "--window-size=1400,3000", page)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	done := make(chan error, 1)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("chromium: %v\n%s", err, stderr.String())
		}
	case <-time.After(90 * time.Second):
		_ = cmd.Process.Kill()
		t.Fatal("chromium timed out")
	}
	// The page has no script: any console message is a failure.
	for _, line := range strings.Split(stderr.String(), "\n") {
		if strings.Contains(line, ":CONSOLE") {
			t.Errorf("console: %s", line)
		}
	}
	log, err := os.ReadFile(netlog)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range netURL.FindAllSubmatch(log, -1) {
		if u := string(m[1]); !browserOwn.MatchString(u) {
			t.Errorf("network request: %s", u)
		}
	}
	if st, err := os.Stat(shot); err != nil || st.Size() < 10000 {
		t.Errorf("screenshot: %v", err)
	}
}

// TestHTMLRunPagesReplaced: a second report removes the run pages of the
// first that it does not write again, and nothing else in runs/.
func TestHTMLRunPagesReplaced(t *testing.T) {
	out := reportDir(t)
	stale := filepath.Join(out, runview.Dir, "gone-00000000.html")
	other := filepath.Join(out, runview.Dir, "notes.txt")
	for _, f := range []string{stale, other} {
		if err := os.WriteFile(f, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := Write(filepath.Dir(out), Options{}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(stale); !os.IsNotExist(err) {
		t.Errorf("a stale run page survived (%v)", err)
	}
	if _, err := os.Stat(other); err != nil {
		t.Errorf("a file that is no page was removed: %v", err)
	}
}

// TestHTMLRunPages: however many runs get a page, every link of
// report.html into runs/ (from the run list and from the sections' lists
// of run ids) names a page that was written, every page is linked from
// its row, and every listed run without a page says how to show it.
func TestHTMLRunPages(t *testing.T) {
	all := len(rawRuns(t, "smoke"))
	tests := []struct {
		name   string
		opts   Options
		listed int
		pages  int // -1: some, fewer than listed
	}{
		{"every run a page", Options{}, all, all},
		{"a few pages", Options{MaxPages: 7}, all, 7},
		{"pages for the telling runs only", Options{PerCell: -1}, all, -1},
		{"no pages", Options{MaxPages: -1}, all, 0},
		{"a large study's list", Options{MaxRunViews: 50, Sample: 20, MaxPages: 30}, -1, 30},
	}
	link := regexp.MustCompile(`href="(runs/[^"]+)"`)
	row := regexp.MustCompile(`<tr><td>(?:<a href="runs/([^"]+)\.html"><code>[^<]+</code></a>|<code title="killchain show ([^ "]+) ([^"]+)">[^<]+</code>)</td>`)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := copyFixture(t, "smoke")
			opts := tt.opts
			opts.NoFigures = true
			if err := Write(dir, opts); err != nil {
				t.Fatal(err)
			}
			out := filepath.Join(dir, "report")
			data, err := os.ReadFile(filepath.Join(out, HTMLFile))
			if err != nil {
				t.Fatal(err)
			}
			pages, err := filepath.Glob(filepath.Join(out, runview.Dir, "*.html"))
			if err != nil {
				t.Fatal(err)
			}
			linked := map[string]bool{}
			for _, m := range link.FindAllSubmatch(data, -1) {
				linked[string(m[1])] = true
				if _, err := os.Stat(filepath.Join(out, string(m[1]))); err != nil {
					t.Errorf("report.html links %s, which is not there", m[1])
				}
			}
			for _, p := range pages {
				if !linked[runview.Dir+"/"+filepath.Base(p)] {
					t.Errorf("the page %s is linked from nowhere", filepath.Base(p))
				}
			}
			rows, shown := 0, 0
			for _, m := range row.FindAllSubmatch(data, -1) {
				rows++
				if len(m[2]) > 0 {
					shown++
					if string(m[2]) != dir {
						t.Errorf("row of %s: killchain show %s, want the study folder %s", m[3], m[2], dir)
					}
				}
			}
			if tt.listed >= 0 && rows != tt.listed || tt.listed < 0 && (rows == 0 || rows >= all) {
				t.Errorf("%d rows in the run list, want %d of %d", rows, tt.listed, all)
			}
			if rows-shown != len(pages) {
				t.Errorf("%d rows link a page, %d pages written", rows-shown, len(pages))
			}
			// The fixture's sections list a run id: without its page it
			// is no link, and says how to show the run.
			if tt.pages == 0 && !bytes.Contains(data, []byte(`<li><code title="killchain show `+dir+` `)) {
				t.Error("a section's list of run ids does not say how to show a run without a page")
			}
			if tt.pages >= 0 && len(pages) != tt.pages || tt.pages < 0 && (len(pages) == 0 || len(pages) >= rows) {
				t.Errorf("%d pages, want %d of %d listed", len(pages), tt.pages, rows)
			}
		})
	}
}
