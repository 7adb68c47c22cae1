package archtest

import (
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode"
)

// root is the repository's root, seen from this package's folder.
const root = "../.."

// pendingDocs are documents other work writes; a link to one is not
// checked while the file does not exist yet.
var pendingDocs = []string{"docs/cli.md", "docs/sandbox.md"}

// topicDocs are the documents the README must link, one per topic.
var topicDocs = []string{"studies", "stages", "tasks", "defenses", "reward-hacking", "audio", "kubernetes",
	"ci-gates", "probes", "results", "architecture", "benchmarks"}

// mdLink is one link of a Markdown file.
type mdLink struct {
	line   int
	target string
}

// linkRE matches an inline link's target: ](target) or ](target "title").
var linkRE = regexp.MustCompile(`\]\(([^()\s]+)(?:\s+"[^"]*")?\)`)

// markdownLinks returns the inline links of a Markdown text, outside
// fenced code blocks and code spans.
func markdownLinks(src string) []mdLink {
	var links []mdLink
	for i, line := range strings.Split(stripCodeSpans(blankFences(src)), "\n") {
		for _, m := range linkRE.FindAllStringSubmatch(line, -1) {
			links = append(links, mdLink{line: i + 1, target: m[1]})
		}
	}
	return links
}

// blankFences empties the lines of fenced code blocks, fences included,
// keeping the line count.
func blankFences(src string) string {
	lines := strings.Split(src, "\n")
	fence := ""
	for i, line := range lines {
		t := strings.TrimSpace(line)
		switch {
		case fence != "":
			if strings.HasPrefix(t, fence) {
				fence = ""
			}
		case strings.HasPrefix(t, "```"):
			fence = "```"
		case strings.HasPrefix(t, "~~~"):
			fence = "~~~"
		default:
			continue
		}
		lines[i] = ""
	}
	return strings.Join(lines, "\n")
}

// stripCodeSpans blanks every code span, backticks included, keeping each
// byte's line and column: a span opens with a run of backticks and closes
// with a run of the same length within its paragraph; a run without one is
// literal.
func stripCodeSpans(text string) string {
	b := []byte(text)
	for i := 0; i < len(b); i++ {
		if b[i] != '`' {
			continue
		}
		n := backticks(b, i)
		end := closingRun(b, i+n, n)
		if end < 0 {
			i += n - 1
			continue
		}
		for k := i; k < end+n; k++ {
			if b[k] != '\n' {
				b[k] = ' '
			}
		}
		i = end + n - 1
	}
	return string(b)
}

// backticks is the length of the run of backticks at b[i].
func backticks(b []byte, i int) int {
	n := 0
	for i+n < len(b) && b[i+n] == '`' {
		n++
	}
	return n
}

// closingRun is where a run of exactly n backticks starts at or after
// from, before the paragraph ends (a blank line); -1 if none.
func closingRun(b []byte, from, n int) int {
	for j := from; j < len(b); j++ {
		switch b[j] {
		case '`':
			m := backticks(b, j)
			if m == n {
				return j
			}
			j += m - 1
		case '\n':
			k := j + 1
			for k < len(b) && (b[k] == ' ' || b[k] == '\t') {
				k++
			}
			if k < len(b) && b[k] == '\n' {
				return -1
			}
		}
	}
	return -1
}

// headingAnchors returns the anchors GitHub gives a Markdown text's
// headings: lower case, punctuation dropped, spaces as hyphens, a -N suffix
// on repeats.
func headingAnchors(src string) map[string]bool {
	anchors := map[string]bool{}
	seen := map[string]int{}
	for _, line := range strings.Split(blankFences(src), "\n") {
		text, ok := strings.CutPrefix(strings.TrimSpace(line), "#")
		if !ok {
			continue
		}
		text = strings.TrimLeft(text, "#")
		if text != "" && text[0] != ' ' {
			continue // "#tag", not a heading
		}
		slug := slugify(text)
		if k := seen[slug]; k > 0 {
			anchors[slug+"-"+strconv.Itoa(k)] = true
		} else {
			anchors[slug] = true
		}
		seen[slug]++
	}
	return anchors
}

// slugify turns heading text into its anchor.
func slugify(text string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(strings.TrimSpace(text)) {
		switch {
		case r == ' ':
			b.WriteByte('-')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
			b.WriteRune(r)
		}
	}
	return b.String()
}

// docFiles are README.md and docs/*.md, relative to the root.
func docFiles(t *testing.T) []string {
	t.Helper()
	docs, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	files := []string{"README.md"}
	for _, d := range docs {
		rel, err := filepath.Rel(root, d)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, filepath.ToSlash(rel))
	}
	return files
}

func readDoc(t *testing.T, name string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(name)))
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// TestDocsLinks holds every relative link of the README and docs/ to a
// file that exists and, for a #fragment into a Markdown file, to one of
// its headings; the README links every topic document, and each document
// links back to the README.
func TestDocsLinks(t *testing.T) {
	for _, name := range docFiles(t) {
		t.Run(name, func(t *testing.T) {
			src := readDoc(t, name)
			backToReadme := false
			for _, l := range markdownLinks(src) {
				if strings.Contains(l.target, "://") || strings.HasPrefix(l.target, "mailto:") {
					continue
				}
				file, frag, _ := strings.Cut(l.target, "#")
				target := name
				if file != "" {
					target = path.Join(path.Dir(name), file)
				}
				if target == "README.md" && name != "README.md" {
					backToReadme = true
				}
				if strings.HasPrefix(target, "../") {
					t.Errorf("%s:%d: link %q leaves the repository", name, l.line, l.target)
					continue
				}
				if _, err := os.Stat(filepath.Join(root, filepath.FromSlash(target))); err != nil {
					if slices.Contains(pendingDocs, target) {
						t.Logf("%s:%d: %s is not written yet; link not checked", name, l.line, target)
						continue
					}
					t.Errorf("%s:%d: link %q: %s does not exist", name, l.line, l.target, target)
					continue
				}
				if frag != "" && strings.HasSuffix(target, ".md") && !headingAnchors(readDoc(t, target))[frag] {
					t.Errorf("%s:%d: link %q: %s has no heading #%s", name, l.line, l.target, target, frag)
				}
			}
			if name != "README.md" && !backToReadme {
				t.Errorf("%s does not link back to the README", name)
			}
		})
	}
	linked := map[string]bool{}
	for _, l := range markdownLinks(readDoc(t, "README.md")) {
		file, _, _ := strings.Cut(l.target, "#")
		linked[path.Clean(file)] = true
	}
	for _, topic := range topicDocs {
		if !linked["docs/"+topic+".md"] {
			t.Errorf("README.md does not link docs/%s.md", topic)
		}
	}
}

// archRowRE matches a row of a package table: its first cell is one
// package path in backticks.
var archRowRE = regexp.MustCompile("^\\| `([^`]+)` \\|")

// TestArchitectureListsEveryPackage holds the table of docs/architecture.md's
// "Packages" section to the module's packages: each listed once, none that
// is gone.
func TestArchitectureListsEveryPackage(t *testing.T) {
	listed := map[string]int{}
	section := ""
	for _, line := range strings.Split(readDoc(t, "docs/architecture.md"), "\n") {
		if h, ok := strings.CutPrefix(line, "## "); ok {
			section = strings.TrimSpace(h)
		}
		if m := archRowRE.FindStringSubmatch(line); m != nil && section == "Packages" {
			listed[m[1]]++
		}
	}
	if len(listed) == 0 {
		t.Fatal(`docs/architecture.md has no package table under "## Packages"`)
	}
	g := graph(t)
	for _, name := range sortedKeys(g) {
		switch listed[name] {
		case 0:
			t.Errorf("docs/architecture.md does not list %s: add a row with its job", name)
		case 1:
		default:
			t.Errorf("docs/architecture.md lists %s %d times", name, listed[name])
		}
	}
	for name := range listed {
		if _, ok := g[name]; !ok {
			t.Errorf("docs/architecture.md lists %s, which is not a package of the module", name)
		}
	}
}

func TestMarkdownLinks(t *testing.T) {
	tests := []struct {
		name string
		src  string
		want []mdLink
	}{
		{"plain", "see [a](docs/a.md) and [b](b.md#x)", []mdLink{{1, "docs/a.md"}, {1, "b.md#x"}}},
		{"title", `[a](a.md "the a")`, []mdLink{{1, "a.md"}}},
		{"fenced block skipped", "```\n[a](gone.md)\n```\n[b](b.md)", []mdLink{{4, "b.md"}}},
		{"tilde fence skipped", "~~~\n[a](gone.md)\n~~~", nil},
		{"code span skipped", "`[a](gone.md)` [b](b.md)", []mdLink{{1, "b.md"}}},
		{"unclosed span kept", "a ` [b](b.md)", []mdLink{{1, "b.md"}}},
		{"span across lines skipped", "a `x\n[a](gone.md)` [b](b.md)", []mdLink{{2, "b.md"}}},
		{"span ends at a blank line", "a `x\n\n[b](b.md) `y`", []mdLink{{3, "b.md"}}},
		{"double backticks", "``a ` [x](gone.md)`` [b](b.md)", []mdLink{{1, "b.md"}}},
		{"table cell", "| x | [b](docs/b.md) |", []mdLink{{1, "docs/b.md"}}},
		{"not a link", "f(x) and [x] (y)", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := markdownLinks(tt.src); !slices.Equal(got, tt.want) {
				t.Errorf("markdownLinks = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestHeadingAnchors(t *testing.T) {
	tests := []struct {
		name string
		src  string
		want []string
	}{
		{"words", "## One run's path", []string{"one-runs-path"}},
		{"code", "## `study`", []string{"study"}},
		{"symbols dropped", "## Stages and outcomes: A × B — C", []string{"stages-and-outcomes-a--b--c"}},
		{"repeats numbered", "# A\n## A\n### A", []string{"a", "a-1", "a-2"}},
		{"fenced heading ignored", "```\n# not\n```\n# yes", []string{"yes"}},
		{"hashtag is no heading", "#tag", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := headingAnchors(tt.src)
			var keys []string
			for k := range got {
				keys = append(keys, k)
			}
			slices.Sort(keys)
			want := slices.Clone(tt.want)
			slices.Sort(want)
			if !slices.Equal(keys, want) {
				t.Errorf("headingAnchors = %v, want %v", keys, want)
			}
		})
	}
}

// FuzzMarkdownLinks holds the link and heading scanners to their input:
// every link target is non-empty, without spaces, and found in its line at
// the place it was read;
// every anchor holds only what an anchor may.
func FuzzMarkdownLinks(f *testing.F) {
	f.Add("see [a](docs/a.md#x) `[b](c)`\n```\n[d](e)\n```\n## A `b` ×\n")
	f.Add("~~~\n# x\n~~~\n[a](b \"t\")")
	f.Fuzz(func(t *testing.T, src string) {
		lines := strings.Split(src, "\n")
		for _, l := range markdownLinks(src) {
			if l.target == "" || strings.ContainsAny(l.target, " \t\n()") {
				t.Fatalf("bad target %q", l.target)
			}
			if l.line < 1 || l.line > len(lines) || !strings.Contains(lines[l.line-1], "]("+l.target) {
				t.Fatalf("target %q not on line %d", l.target, l.line)
			}
		}
		for a := range headingAnchors(src) {
			for _, r := range a {
				if r != '-' && r != '_' && !unicode.IsLetter(r) && !unicode.IsDigit(r) {
					t.Fatalf("anchor %q holds %q", a, r)
				}
			}
		}
	})
}
