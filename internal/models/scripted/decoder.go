package scripted

import (
	"encoding/base64"
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/killchain/killchain/internal/attacks"
)

// base64Run is a run of base64 text long enough to hold an instruction.
var base64Run = regexp.MustCompile(`[A-Za-z0-9+/]{16,}={0,2}`)

// decodedDirectives are the directives the decoder policy reads in
// content: those of each base64 run (on its line, or with the lines
// joined) that decodes to text, and of the
// content and those texts under ROT13. A directive in clear text is not
// among them: ROT13 turns it into nonsense.
func decodedDirectives(text string) []string {
	var out []string
	for _, t := range decodedTexts(text) {
		out = append(out, Parse(Normalize(t)).Directives...)
	}
	return out
}

// decodedTexts are the texts content reads as once decoded: the content
// under ROT13, and each base64 run (on its line, or with the lines
// joined) that decodes to text, plain and under ROT13.
func decodedTexts(text string) []string {
	texts := []string{attacks.Rot13(text)}
	// A blob wrapped over lines (a PDF's text) is read joined too.
	runs := base64Run.FindAllString(text, -1)
	if joined := strings.ReplaceAll(text, "\n", ""); joined != text {
		runs = append(runs, base64Run.FindAllString(joined, -1)...)
	}
	seen := map[string]bool{}
	for _, run := range runs {
		if seen[run] {
			continue
		}
		seen[run] = true
		b, err := base64.StdEncoding.DecodeString(run)
		if err != nil || !utf8.Valid(b) || !printable(string(b)) {
			continue
		}
		texts = append(texts, string(b), attacks.Rot13(string(b)))
	}
	return texts
}

// printable reports whether s reads as text: no control characters but
// line breaks and tabs.
func printable(s string) bool {
	return !strings.ContainsFunc(s, func(r rune) bool { return r < ' ' && r != '\n' && r != '\t' && r != '\r' })
}
