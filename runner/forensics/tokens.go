package forensics

import (
	"strings"
	"unicode"
)

// Tokens splits text into lower-cased runs of letters and digits and keeps
// those of at least minLen characters, in order, repeats included.
func Tokens(text string, minLen int) []string {
	var out []string
	start := -1
	n := 0
	flush := func(end int) {
		if start >= 0 && n >= minLen {
			out = append(out, strings.ToLower(text[start:end]))
		}
		start, n = -1, 0
	}
	for i, r := range text {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			if start < 0 {
				start = i
			}
			n++
			continue
		}
		flush(i)
	}
	flush(len(text))
	return out
}

// tokenSet is a set of distinct tokens.
type tokenSet map[string]struct{}

// provenanceTokens returns the distinct provenance tokens of text:
// alphanumeric, lower-cased, at least 4 characters.
func provenanceTokens(text string) tokenSet {
	s := make(tokenSet)
	for _, t := range Tokens(text, ProvenanceMinLen) {
		s[t] = struct{}{}
	}
	return s
}

// shared counts the tokens of a found in b.
func (a tokenSet) shared(b tokenSet) int {
	n := 0
	for t := range a {
		if _, ok := b[t]; ok {
			n++
		}
	}
	return n
}
