package audio

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"strings"
)

// lexicon is a pronunciation dictionary: word → pronunciations, each a
// string of CMU phones.
type lexicon map[string][]string

// loadLexicon reads the entries of words in want from a pocketsphinx
// dictionary ("word PH ON ES", alternates as "word(2) …"); nil want reads
// them all. Reading only the words a phrase list needs (lexiconWords) keeps
// a transcription from building a map of the whole CMUdict.
func loadLexicon(path string, want map[string]bool) (lexicon, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("lexicon: %w", err)
	}
	lex := lexicon{}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		line := sc.Bytes()
		i := bytes.IndexAny(line, " \t")
		if i <= 0 {
			continue
		}
		w := line[:i]
		if j := bytes.IndexByte(w, '('); j > 0 {
			w = w[:j]
		}
		if want != nil && !want[string(w)] {
			continue
		}
		lex[string(w)] = append(lex[string(w)], strings.TrimSpace(string(line[i+1:])))
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("lexicon: %w", err)
	}
	return lex, nil
}

// lexiconWords is every word loadLexicon needs for a phrase list: the
// words its tokens are said as, the parts each could be split into
// (pronounce), and the code words.
func lexiconWords(text string) map[string]bool {
	want := map[string]bool{}
	add := func(w string) {
		want[w] = true
		for i := len(w) - 3; i >= 3; i-- {
			want[w[:i]], want[w[i:]] = true, true
		}
	}
	for _, tok := range strings.Fields(text) {
		for _, w := range spokenToken.FindAllString(spokenForm(tok), -1) {
			add(w)
		}
	}
	for _, w := range append([]string{codeLead, codeDash}, codeSymbols...) {
		add(w)
	}
	return want
}

// spokenForm lowercases a token and turns the marks that join words
// ("write-up", "and/or") into spaces.
func spokenForm(tok string) string {
	return strings.ToLower(strings.NewReplacer("-", " ", "/", " ", "’", "'").Replace(tok))
}

// say returns the words a written token is spoken as ("write-up" → write,
// up; "Thursday," → thursday) and records their pronunciations in dict.
// A word the lexicon lacks is said as two words it has, when it splits so
// ("siteledger" as site ledger); otherwise the token cannot be said and ok
// is false.
func (lex lexicon) say(tok string, dict map[string][]string) (words []string, ok bool) {
	words = spokenToken.FindAllString(spokenForm(tok), -1)
	if len(words) == 0 {
		return nil, false
	}
	prons := make([][]string, len(words))
	for i, w := range words {
		p := lex.pronounce(w)
		if p == nil {
			return nil, false
		}
		prons[i] = p
	}
	for i, w := range words {
		dict[w] = prons[i]
	}
	return words, true
}

// pronounce returns w's pronunciations, or those of a compound of two
// lexicon words of three letters or more; nil when there are none.
func (lex lexicon) pronounce(w string) []string {
	if p, ok := lex[w]; ok {
		return p
	}
	for i := len(w) - 3; i >= 3; i-- {
		a, b := lex[w[:i]], lex[w[i:]]
		if a != nil && b != nil {
			return []string{a[0] + " " + b[0]}
		}
	}
	return nil
}
