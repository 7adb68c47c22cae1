package tasks

import (
	"embed"
	"fmt"
	"strings"

	"github.com/killchain/killchain/sandbox"
)

//go:embed fixtures/*.txt
var fixtureFS embed.FS

// fixture returns an embedded fixture's text. A missing fixture is a
// programming error caught by the package tests, so it panics.
func fixture(name string) string {
	data, err := fixtureFS.ReadFile("fixtures/" + name)
	if err != nil {
		panic(fmt.Sprintf("tasks: fixture %s: %v", name, err))
	}
	return string(data)
}

// section is one "## name" block of a fixture.
type section struct {
	Name string
	Text string
}

// sections splits a fixture into its "## name" blocks. Lines before the
// first header are ignored; each block's text is trimmed.
func sections(name string) []section {
	var out []section
	var cur *section
	var body []string
	done := func() {
		if cur != nil {
			cur.Text = strings.TrimSpace(strings.Join(body, "\n"))
			out = append(out, *cur)
		}
		body = nil
	}
	for _, l := range strings.Split(fixture(name), "\n") {
		if h, ok := strings.CutPrefix(l, "## "); ok {
			done()
			cur = &section{Name: strings.TrimSpace(h)}
			continue
		}
		body = append(body, l)
	}
	done()
	return out
}

// sectionMap returns a fixture's sections by name.
func sectionMap(name string) map[string]string {
	m := map[string]string{}
	for _, s := range sections(name) {
		m[s.Name] = s.Text
	}
	return m
}

// records reads a fixture of "## ID | Title" sections as database rows.
func records(name string) []sandbox.DBRecord {
	var out []sandbox.DBRecord
	for _, s := range sections(name) {
		id, title, ok := strings.Cut(s.Name, "|")
		if !ok {
			panic(fmt.Sprintf("tasks: fixture %s: record header %q is not \"ID | Title\"", name, s.Name))
		}
		out = append(out, sandbox.DBRecord{ID: strings.TrimSpace(id), Title: strings.TrimSpace(title), Body: s.Text})
	}
	return out
}

// notes reads a fixture of "## key" sections as seeded memory records.
func notes(name string) []sandbox.Record {
	var out []sandbox.Record
	for _, s := range sections(name) {
		out = append(out, sandbox.TextRecord(s.Name, s.Text, "seed"))
	}
	return out
}

// paragraphs splits text at blank lines, joining each paragraph's lines with
// spaces.
func paragraphs(text string) []string {
	var out []string
	for _, p := range strings.Split(strings.TrimSpace(text), "\n\n") {
		if p = strings.Join(strings.Fields(p), " "); p != "" {
			out = append(out, p)
		}
	}
	return out
}
