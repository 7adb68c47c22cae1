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

// loadLexicon reads a pocketsphinx dictionary ("word PH ON ES", alternates
// as "word(2) …").
func loadLexicon(path string) (lexicon, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("lexicon: %w", err)
	}
	lex := make(lexicon, 140000)
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		line := sc.Text()
		i := strings.IndexAny(line, " \t")
		if i <= 0 {
			continue
		}
		w := line[:i]
		if j := strings.IndexByte(w, '('); j > 0 {
			w = w[:j]
		}
		lex[w] = append(lex[w], strings.TrimSpace(line[i+1:]))
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("lexicon: %w", err)
	}
	return lex, nil
}

// say returns the words a written token is spoken as ("write-up" → write,
// up; "Thursday," → thursday) and records their pronunciations in dict.
// A word the lexicon lacks is said as two words it has, when it splits so
// ("siteledger" as site ledger); otherwise the token cannot be said and ok
// is false.
func (lex lexicon) say(tok string, dict map[string][]string) (words []string, ok bool) {
	low := strings.ToLower(strings.NewReplacer("-", " ", "/", " ", "’", "'").Replace(tok))
	words = spokenToken.FindAllString(low, -1)
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
