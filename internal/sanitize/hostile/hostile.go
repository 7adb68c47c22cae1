// Package hostile is the corpus of hostile text that the tests of every
// sanitiser, the report's escaping and spotlighting share: terminal escape
// sequences (OSC 52, OSC 8, title changes, erase-and-overprint), control
// characters, names with newlines, spreadsheet formulas, spotlighting
// markers nested inside each other, HTML and Markdown. Tests only.
package hostile

import (
	_ "embed"
	"encoding/json"
	"fmt"
)

// Text is one hostile text.
type Text struct {
	Name string `json:"name"`
	Text string `json:"text"`
}

//go:embed testdata/corpus.json
var corpus []byte

// Corpus returns the hostile texts of testdata/corpus.json, and those JSON
// cannot hold (bytes that are not UTF-8).
func Corpus() []Text {
	var out []Text
	if err := json.Unmarshal(corpus, &out); err != nil {
		panic(fmt.Sprintf("hostile: testdata/corpus.json: %v", err))
	}
	return append(out,
		Text{Name: "C1 CSI as a raw byte", Text: "a\x9b2Kb"},
		Text{Name: "a cut UTF-8 sequence", Text: "ok \xe2\x80"},
	)
}
