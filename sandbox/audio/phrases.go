package audio

import (
	"fmt"
	"maps"
	"os"
	"regexp"
	"slices"
	"strings"

	"github.com/killchain/killchain/sandbox"
)

// A phrase list tells the recognizer which sentences a clip can speak, the
// way a speech service takes phrase hints or a custom vocabulary. A task
// lists every sentence of every clip it may speak — its clean script and
// each payload variant — with CodeSlot where a spoken code goes, so the list
// is the same for a clean and an attacked run and never holds a canary.
//
// With a phrase list the recognizer decodes against a grammar whose words
// are those of the list: any sequence of listed sentences (a colon or
// semicolon also ends one) and spelled codes, a listed sentence speaking a
// code where the list has the slot. A code is "secret dash" and CodeSymbols
// NATO letters or digit words, each symbol free, so a code is heard, not
// looked up. The transcript is what it heard,
// written back in the phrase list's own spelling — capitals, hyphens and
// sentence punctuation — one sentence a line; a spelled code stays as the
// spoken words it was heard as. That rewriting (format) is the one place
// the transcript is normalized.

// PhrasesSuffix is appended to a clip's path to name its phrase list (a
// text file, one sentence or more a line) beside it.
const PhrasesSuffix = sandbox.PhrasesSuffix

// CodeSlot marks where a phrase list's sentence holds a spoken code. It is
// the payload templates' canary placeholder.
const CodeSlot = "{{CANARY}}"

// codeSymbols are the words a code is spelled with, the NATO letters A–F and
// the digit words (canary.Spoken).
var codeSymbols = []string{"alfa", "bravo", "charlie", "delta", "echo", "foxtrot",
	"zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine"}

// Code lead-in words: a spoken code is "secret dash" and its symbols.
const (
	codeLead = "secret"
	codeDash = "dash"
)

// CodeSymbols is how many symbols a spoken code has: the eight hex digits of
// a canary. The grammar hears exactly that many after "secret dash", so the
// pause after a code is not heard as more symbols.
const CodeSymbols = 8

// slotWord stands for a spoken code among a part's words; the grammar
// refers to its <code> rule there.
const slotWord = "<code>"

// part is a sentence of a phrase list (a colon or semicolon also ends one):
// the words it is spoken as, slotWord where it speaks a code, and how it is
// written, CodeSlot where the code goes.
type part struct {
	words   []string
	written string
	starts  bool // starts a line
	ends    bool // ends a sentence: a line break follows it (not after a colon)
}

// grammar is a compiled phrase list.
type grammar struct {
	parts []part
	dict  map[string][]string // word → pronunciations (CMU phones)
	// dropped lists the words no pronunciation was found for; they are
	// left out of the grammar and of the written form.
	dropped []string
}

// sentenceEnd splits a phrase list into sentences: at a stop, question or
// exclamation mark, colon or semicolon followed by space, and at line ends.
var sentenceEnd = regexp.MustCompile(`([.!?:;])(\s+|$)|\n+`)

// spokenToken splits a written token into the words it is said as.
var spokenToken = regexp.MustCompile(`[a-z0-9']+`)

// parsePhrases reads a phrase list into parts, looking words up in lex.
func parsePhrases(text string, lex lexicon) grammar {
	g := grammar{dict: map[string][]string{}}
	seen := map[string]bool{}
	dropped := map[string]bool{}
	add := func(p part) {
		key := strings.Join(p.words, " ")
		if key == "" || seen[key] {
			return
		}
		seen[key] = true
		g.parts = append(g.parts, p)
	}
	starts := true // the next sentence starts a line
	for _, sent := range splitSentences(text) {
		// A colon or semicolon ends a part but not the line.
		ends := !strings.HasSuffix(sent, ":") && !strings.HasSuffix(sent, ";")
		var words []string
		var written strings.Builder
		for _, tok := range strings.Fields(strings.ReplaceAll(sent, CodeSlot, " "+CodeSlot+" ")) {
			switch {
			case tok == CodeSlot:
				words = append(words, slotWord)
			case !spokenToken.MatchString(strings.ToLower(tok)):
				written.WriteString(tok) // punctuation only: no space before it
				continue
			default:
				spoken, ok := lex.say(tok, g.dict)
				if !ok {
					dropped[strings.ToLower(tok)] = true
					continue
				}
				words = append(words, spoken...)
			}
			if written.Len() > 0 {
				written.WriteByte(' ')
			}
			written.WriteString(tok)
		}
		add(part{words: words, written: written.String(), starts: starts, ends: ends})
		starts = ends
	}
	for _, w := range append([]string{codeLead, codeDash}, codeSymbols...) {
		if _, ok := lex.say(w, g.dict); !ok {
			dropped[w] = true
		}
	}
	g.dropped = slices.Sorted(maps.Keys(dropped))
	return g
}

// splitSentences splits text at sentence ends, keeping each sentence's
// closing mark.
func splitSentences(text string) []string {
	var out []string
	last := 0
	for _, m := range sentenceEnd.FindAllStringSubmatchIndex(text, -1) {
		end := m[1]
		if m[2] >= 0 {
			end = m[3] // keep the mark
		}
		if s := strings.TrimSpace(text[last:end]); s != "" {
			out = append(out, s)
		}
		last = m[1]
	}
	if s := strings.TrimSpace(text[last:]); s != "" {
		out = append(out, s)
	}
	return out
}

// jsgf is the grammar in JSGF: any sequence of parts and spelled codes
// (CodeSymbols symbols after "secret dash").
func (g grammar) jsgf() string {
	var b strings.Builder
	b.WriteString("#JSGF V1.0;\ngrammar clip;\npublic <clip> = <part>+;\n<part> = <code>")
	for i := range g.parts {
		fmt.Fprintf(&b, " | <p%d>", i)
	}
	b.WriteString(";\n")
	for i, p := range g.parts {
		fmt.Fprintf(&b, "<p%d> = %s;\n", i, strings.Join(p.words, " "))
	}
	fmt.Fprintf(&b, "<code> = %s %s%s;\n<sym> = %s;\n", codeLead, codeDash, strings.Repeat(" <sym>", CodeSymbols), strings.Join(codeSymbols, " | "))
	return b.String()
}

// dictionary is the pronunciation dictionary of the grammar's words, in
// pocketsphinx's format (alternates as word(2)).
func (g grammar) dictionary() string {
	var b strings.Builder
	for _, w := range slices.Sorted(maps.Keys(g.dict)) {
		for i, pron := range g.dict[w] {
			if i == 0 {
				fmt.Fprintf(&b, "%s %s\n", w, pron)
			} else {
				fmt.Fprintf(&b, "%s(%d) %s\n", w, i+1, pron)
			}
		}
	}
	return b.String()
}

// format writes the words the recognizer heard back in the phrase list's
// spelling: each run of words that is a part is written as the part is,
// "secret dash" and the symbols after it stay spoken words, and any other
// word stays as heard. A line ends after each sentence, and after a code
// outside a listed sentence that a new sentence follows.
func (g grammar) format(heard []string) string {
	var b strings.Builder
	for i := 0; i < len(heard); {
		if b.Len() > 0 && !strings.HasSuffix(b.String(), "\n") {
			b.WriteByte(' ')
		}
		if k, n, codes := g.match(heard[i:]); k >= 0 {
			p := g.parts[k]
			w := p.written
			for _, c := range codes {
				w = strings.Replace(w, CodeSlot, c, 1)
			}
			b.WriteString(w)
			if p.ends {
				b.WriteByte('\n')
			}
			i += n
			continue
		}
		if n := codeLen(heard[i:]); n > 0 {
			b.WriteString(strings.Join(heard[i:i+n], " "))
			i += n
			if k, _, _ := g.match(heard[i:]); i == len(heard) || k >= 0 && g.parts[k].starts {
				b.WriteString(".\n")
			}
			continue
		}
		b.WriteString(heard[i])
		i++
	}
	return strings.TrimSpace(b.String())
}

// match finds the longest part heard starts with: its index (-1 for none),
// how many words it took, and the codes heard in its slots.
func (g grammar) match(heard []string) (best, n int, codes []string) {
	best = -1
	for k, p := range g.parts {
		if m, c, ok := p.match(heard); ok && m > n {
			best, n, codes = k, m, c
		}
	}
	return best, n, codes
}

// match reports whether heard starts with the part, how many words that
// took, and the code heard in each slot ("secret dash" and CodeSymbols
// symbols).
func (p part) match(heard []string) (n int, codes []string, ok bool) {
	for _, w := range p.words {
		if w != slotWord {
			if n >= len(heard) || heard[n] != w {
				return 0, nil, false
			}
			n++
			continue
		}
		c := heard[n:]
		if len(c) < 2+CodeSymbols || c[0] != codeLead || c[1] != codeDash {
			return 0, nil, false
		}
		for _, sym := range c[2 : 2+CodeSymbols] {
			if !slices.Contains(codeSymbols, sym) {
				return 0, nil, false
			}
		}
		codes = append(codes, strings.Join(c[:2+CodeSymbols], " "))
		n += 2 + CodeSymbols
	}
	return n, codes, n > 0
}

// codeLen is the length of the spelled code heard starts with: "secret
// dash" and CodeSymbols symbols, or else a run of symbols; 0 when none.
func codeLen(heard []string) int {
	if len(heard) >= 2+CodeSymbols && heard[0] == codeLead && heard[1] == codeDash {
		n := 2
		for n < 2+CodeSymbols && slices.Contains(codeSymbols, heard[n]) {
			n++
		}
		if n == 2+CodeSymbols {
			return n
		}
	}
	n := 0
	for n < len(heard) && slices.Contains(codeSymbols, heard[n]) {
		n++
	}
	return n
}

// ReadPhrases reads the phrase list beside the clip at wavPath; "" when
// there is none.
func ReadPhrases(wavPath string) (string, error) {
	data, err := os.ReadFile(wavPath + PhrasesSuffix)
	if os.IsNotExist(err) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("phrase list: %w", err)
	}
	return string(data), nil
}
