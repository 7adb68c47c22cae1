package attacks

import (
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"strings"
	"unicode/utf8"
)

// Kind says what an encoding rewrites, which decides where it may stand in
// a chain and how the canary recognizer undoes it.
type Kind string

const (
	// KindBytes encodings rewrite every byte (base64, hex): undone by
	// decoding the runs of their alphabet found in a text.
	KindBytes Kind = "bytes"
	// KindLetters encodings rewrite letters one by one (ROT13, leetspeak).
	KindLetters Kind = "letters"
	// KindChars encodings rewrite or add characters a reader does not see
	// or cannot tell apart (Unicode tags, zero-width, homoglyphs): undone
	// by folding them back before any comparison.
	KindChars Kind = "chars"
	// KindMarkup encodings wrap the payload in markup a page does not
	// render (an HTML comment, a hidden span); they stand last in a chain
	// and only on a surface that is markup.
	KindMarkup Kind = "markup"
	// KindChannels encodings change where the payload goes, not what it
	// says: split cuts it in two, one half in each of two channels of a
	// multi-surface task (tasks.Task.AttackVariant places the halves).
	KindChannels Kind = "channels"
)

// Encoding is one reversible rewriting of a payload.
type Encoding struct {
	Name        string
	Description string // one line, for `killchain attacks`
	Kind        Kind
	// Undo says, in words, how a reader undoes it.
	Undo string
	// Lossless is set when Decode(Encode(s)) == s for every s. A lossy
	// encoding folds: Decode(Encode(s)) == Decode(s), and is s for text
	// holding none of the characters the encoding writes.
	Lossless bool
	Encode   func(string) string
	Decode   func(string) (string, error)
}

// Encodings lists the built-in encodings in the order `killchain attacks`
// shows them.
var Encodings = []Encoding{
	{Name: "base64", Kind: KindBytes, Lossless: true,
		Description: "the payload's UTF-8 bytes in standard base64, one line",
		Undo:        "decode the base64 text (standard alphabet, padded)",
		Encode:      func(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) },
		Decode: func(s string) (string, error) {
			b, err := base64.StdEncoding.DecodeString(strings.TrimSpace(s))
			if err != nil {
				return "", fmt.Errorf("base64: %w", err)
			}
			return string(b), nil
		}},
	{Name: "hex", Kind: KindBytes, Lossless: true,
		Description: "the payload's UTF-8 bytes as lower-case hexadecimal pairs",
		Undo:        "read each pair of hex digits as one byte",
		Encode:      func(s string) string { return hex.EncodeToString([]byte(s)) },
		Decode: func(s string) (string, error) {
			b, err := hex.DecodeString(strings.TrimSpace(s))
			if err != nil {
				return "", fmt.Errorf("hex: %w", err)
			}
			return string(b), nil
		}},
	{Name: "rot13", Kind: KindLetters, Lossless: true,
		Description: "every Latin letter moved 13 places along the alphabet",
		Undo:        "apply ROT13 again",
		Encode:      Rot13,
		Decode:      func(s string) (string, error) { return Rot13(s), nil }},
	{Name: "leetspeak", Kind: KindLetters,
		Description: "the letters a e i o s t written as the digits 4 3 1 0 5 7",
		Undo:        "read 4 3 1 0 5 7 as a e i o s t (letters come back in lower case)",
		Encode:      leetEncode,
		Decode:      func(s string) (string, error) { return LeetFold(s), nil }},
	{Name: "tags", Kind: KindChars,
		Description: "every ASCII character moved into the invisible Unicode tag block (U+E0000)",
		Undo:        "subtract U+E0000 from every character of the tag block",
		Encode:      tagsEncode,
		Decode:      func(s string) (string, error) { return untag(s), nil }},
	{Name: "zero_width", Kind: KindChars,
		Description: "a zero-width space between every two visible characters",
		Undo:        "delete the zero-width characters (U+200B, U+200C, U+200D, U+2060, U+FEFF)",
		Encode:      zeroWidthEncode,
		Decode:      func(s string) (string, error) { return dropZeroWidth(s), nil }},
	{Name: "homoglyph", Kind: KindChars,
		Description: "Latin letters replaced by Cyrillic letters that look the same",
		Undo:        "map each Cyrillic look-alike back to its Latin letter",
		Encode:      homoglyphEncode,
		Decode:      func(s string) (string, error) { return unhomoglyph(s), nil }},
	{Name: "split", Kind: KindChannels, Lossless: true,
		Description: "the payload cut in two at a line (or word) boundary, one half in each of two channels",
		Undo:        "read both channels and join the halves",
		Encode:      func(s string) string { return s },
		Decode:      func(s string) (string, error) { return s, nil }},
	{Name: "html_comment", Kind: KindMarkup, Lossless: true,
		Description: "the payload inside an HTML comment, which a browser does not show",
		Undo:        "take the text between <!-- and --> and unescape &amp; &lt; &gt;",
		Encode:      func(s string) string { return "<!-- " + escapeMarkup(s) + " -->" },
		Decode:      func(s string) (string, error) { return unwrap(s, "<!-- ", " -->") }},
	{Name: "hidden_span", Kind: KindMarkup, Lossless: true,
		Description: "the payload inside a span styled display:none",
		Undo:        "take the span's text and unescape &amp; &lt; &gt;",
		Encode:      func(s string) string { return hiddenOpen + escapeMarkup(s) + "</span>" },
		Decode:      func(s string) (string, error) { return unwrap(s, hiddenOpen, "</span>") }},
}

const hiddenOpen = `<span style="display:none">`

// LookupEncoding returns a built-in encoding by name.
func LookupEncoding(name string) (Encoding, bool) {
	for _, e := range Encodings {
		if e.Name == name {
			return e, true
		}
	}
	return Encoding{}, false
}

// EncodingNames lists the built-in encodings' names.
func EncodingNames() []string {
	out := make([]string, len(Encodings))
	for i, e := range Encodings {
		out[i] = e.Name
	}
	return out
}

// Rot13 moves every ASCII letter 13 places; it is its own inverse. It
// works on bytes, so other characters (and invalid UTF-8) pass unchanged.
func Rot13(s string) string {
	b := []byte(s)
	for i, c := range b {
		switch {
		case c >= 'a' && c <= 'z':
			b[i] = 'a' + (c-'a'+13)%26
		case c >= 'A' && c <= 'Z':
			b[i] = 'A' + (c-'A'+13)%26
		}
	}
	return string(b)
}

var leet = map[rune]rune{'a': '4', 'e': '3', 'i': '1', 'o': '0', 's': '5', 't': '7'}

var unleet = func() map[rune]rune {
	m := map[rune]rune{}
	for k, v := range leet {
		m[v] = k
	}
	return m
}()

func leetEncode(s string) string {
	return strings.Map(func(r rune) rune {
		if d, ok := leet[toLowerASCII(r)]; ok {
			return d
		}
		return r
	}, s)
}

// LeetFold lower-cases ASCII letters and reads the leetspeak digits as
// their letters: two texts that differ only by leetspeak fold alike. It
// works on bytes, so other characters pass unchanged.
func LeetFold(s string) string {
	b := []byte(s)
	for i, c := range b {
		switch {
		case c >= 'A' && c <= 'Z':
			b[i] = c + 'a' - 'A'
		case c >= '0' && c <= '9':
			if l, ok := unleet[rune(c)]; ok {
				b[i] = byte(l)
			}
		}
	}
	return string(b)
}

func toLowerASCII(r rune) rune {
	if r >= 'A' && r <= 'Z' {
		return r + 'a' - 'A'
	}
	return r
}

const tagBase = 0xE0000

func tagsEncode(s string) string {
	return strings.Map(func(r rune) rune {
		if r < utf8.RuneSelf {
			return tagBase + r
		}
		return r
	}, s)
}

func untag(s string) string {
	return strings.Map(func(r rune) rune {
		if r >= tagBase && r <= tagBase+0x7F {
			return r - tagBase
		}
		return r
	}, s)
}

const zwsp = '\u200B'

func isZeroWidth(r rune) bool {
	return r == '\u200B' || r == '\u200C' || r == '\u200D' || r == '\u2060' || r == '\uFEFF'
}

func zeroWidthEncode(s string) string {
	var b strings.Builder
	prevVisible := false
	for _, r := range s {
		visible := r > ' ' && !isZeroWidth(r)
		if visible && prevVisible {
			b.WriteRune(zwsp)
		}
		b.WriteRune(r)
		prevVisible = visible
	}
	return b.String()
}

func dropZeroWidth(s string) string {
	return strings.Map(func(r rune) rune {
		if isZeroWidth(r) {
			return -1
		}
		return r
	}, s)
}

// glyphs maps Latin letters to Cyrillic letters drawn the same.
var glyphs = map[rune]rune{
	'A': 'А', 'B': 'В', 'C': 'С', 'E': 'Е', 'H': 'Н', 'I': 'І', 'J': 'Ј', 'K': 'К', 'M': 'М',
	'O': 'О', 'P': 'Р', 'S': 'Ѕ', 'T': 'Т', 'X': 'Х', 'Y': 'Ү',
	'a': 'а', 'c': 'с', 'e': 'е', 'i': 'і', 'j': 'ј', 'o': 'о', 'p': 'р', 's': 'ѕ', 'x': 'х', 'y': 'у',
}

var unglyphs = func() map[rune]rune {
	m := map[rune]rune{}
	for k, v := range glyphs {
		m[v] = k
	}
	return m
}()

func homoglyphEncode(s string) string {
	return strings.Map(func(r rune) rune {
		if g, ok := glyphs[r]; ok {
			return g
		}
		return r
	}, s)
}

func unhomoglyph(s string) string {
	return strings.Map(func(r rune) rune {
		if l, ok := unglyphs[r]; ok {
			return l
		}
		return r
	}, s)
}

// DropInvisible undoes the encodings a reader cannot see: tag characters
// back to ASCII, zero-width characters removed.
func DropInvisible(s string) string {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return dropZeroWidth(untag(s))
		}
	}
	return s
}

// FoldChars undoes every KindChars encoding at once: tag characters back to
// ASCII, zero-width characters removed, Cyrillic look-alikes back to Latin.
func FoldChars(s string) string {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return unhomoglyph(dropZeroWidth(untag(s)))
		}
	}
	return s // none of them is ASCII
}

// escapeMarkup escapes & < > so that the wrapped text cannot close its
// wrapper; html.UnescapeString undoes it.
func escapeMarkup(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;").Replace(s)
}

func unwrap(s, open, end string) (string, error) {
	inner, ok := strings.CutPrefix(s, open)
	if ok {
		inner, ok = strings.CutSuffix(inner, end)
	}
	if !ok {
		return "", fmt.Errorf("not wrapped in %s…%s", open, end)
	}
	return unescapeMarkup(inner), nil
}

func unescapeMarkup(s string) string {
	return strings.NewReplacer("&lt;", "<", "&gt;", ">", "&amp;", "&").Replace(s)
}

// Split cuts a payload in two at the line boundary nearest its middle, or,
// for one line, at the word boundary nearest its middle; words (and so a
// canary) stay whole. The second half is empty for a single word.
func Split(payload string) (string, string) {
	lines := strings.Split(strings.TrimSpace(payload), "\n")
	if len(lines) > 1 {
		k := (len(lines) + 1) / 2
		return strings.Join(lines[:k], "\n"), strings.Join(lines[k:], "\n")
	}
	words := strings.Fields(lines[0])
	k := (len(words) + 1) / 2
	return strings.Join(words[:k], " "), strings.Join(words[k:], " ")
}
