// Package sanitize makes untrusted text harmless where killchain shows it.
// Model replies, attacker payloads, tool arguments and results, provider
// errors, task files and the study folders researchers pass around are
// adversarial by design; what they hold is shown as text, never obeyed.
//
//   - Terminal: for a terminal (show, tasks, plan --show, every log line and
//     error message on stderr). Every C0 control character but tab and
//     newline, DEL, every C1 control character and every byte that is not
//     UTF-8 is written as a visible escape (ESC as `\x1b`), so no escape
//     sequence (a clipboard write, a link, a title change, an erased line)
//     reaches the terminal as one.
//   - Line: the same for text that becomes one line: a name, a heading, a
//     table cell, a list item of report.md. Tab, newline and the Unicode
//     line and paragraph separators are escaped too.
//   - FileName: for a name taken from untrusted text that becomes part of
//     a file name: no separator, no control character, no "..".
//   - CSVCell: for a CSV cell a spreadsheet opens. A cell that starts with
//     =, +, -, @, tab or carriage return and is not a number gets a leading
//     single quote, so it is not read as a formula (OWASP's advice).
//
// The HTML report needs none of these: html/template escapes by context.
package sanitize

import (
	"io"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"
)

// Terminal returns s with every control character but tab and newline made
// visible (see the package comment).
func Terminal(s string) string { return clean(s, false) }

// Line returns s on one line with every control character made visible,
// tab and newline included.
func Line(s string) string { return clean(s, true) }

// clean escapes what must not pass; oneLine escapes tab, newline, U+2028
// and U+2029 too.
func clean(s string, oneLine bool) string {
	i := firstBad(s, oneLine)
	if i < 0 {
		return s
	}
	b := make([]byte, 0, len(s)+16)
	b = append(b, s[:i]...)
	for i < len(s) {
		c := s[i]
		if c < utf8.RuneSelf {
			if badASCII(c, oneLine) {
				b = appendHex(b, c)
			} else {
				b = append(b, c)
			}
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n <= 1:
			b = appendHex(b, c) // not UTF-8: a lone 0x9b is CSI to some terminals
		case badRune(r, oneLine):
			b = append(b, `\u`...)
			b = append(b, hex4(r)...)
		default:
			b = append(b, s[i:i+n]...)
		}
		i += n
	}
	return string(b)
}

// firstBad is the index of the first byte clean changes, or -1.
func firstBad(s string, oneLine bool) int {
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if badASCII(c, oneLine) {
				return i
			}
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if (r == utf8.RuneError && n <= 1) || badRune(r, oneLine) {
			return i
		}
		i += n
	}
	return -1
}

func badASCII(c byte, oneLine bool) bool {
	if c == '\t' || c == '\n' {
		return oneLine
	}
	return c < 0x20 || c == 0x7f
}

func badRune(r rune, oneLine bool) bool {
	return (r >= 0x80 && r <= 0x9f) || (oneLine && (r == '\u2028' || r == '\u2029'))
}

func appendHex(b []byte, c byte) []byte {
	const digits = "0123456789abcdef"
	return append(b, '\\', 'x', digits[c>>4], digits[c&0xf])
}

func hex4(r rune) string {
	h := strconv.FormatInt(int64(r), 16)
	for len(h) < 4 {
		h = "0" + h
	}
	return h
}

// FileName returns s as one part of a file name: every path separator and
// control character (and every byte that is not UTF-8) becomes a dash, and
// a name of dots alone ("." or "..") becomes dashes too, so a name taken
// from a study folder (a task's, a probe target's) names one file in its
// folder.
func FileName(s string) string {
	s = strings.ToValidUTF8(s, "-")
	s = strings.Map(func(r rune) rune {
		if r == '/' || r == '\\' || r < 0x20 || r == 0x7f || r >= 0x80 && r <= 0x9f || r == '\u2028' || r == '\u2029' {
			return '-'
		}
		return r
	}, s)
	if strings.Trim(s, ".") == "" {
		s = strings.Repeat("-", len(s))
	}
	return s
}

// Writer passes Terminal's form of what is written to the writer beneath.
// A multi-byte character cut between two writes is held until the next.
// It is safe for concurrent use.
type Writer struct {
	mu      sync.Mutex
	w       io.Writer
	pending []byte
}

// NewWriter returns a Writer over w.
func NewWriter(w io.Writer) *Writer { return &Writer{w: w} }

// Write writes Terminal(p) and reports len(p).
func (w *Writer) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	buf := p
	if len(w.pending) > 0 {
		buf = append(w.pending, p...)
		w.pending = nil
	}
	// Hold the start of a character the next write completes.
	cut := len(buf)
	for i := len(buf) - 1; i >= 0 && i >= len(buf)-utf8.UTFMax; i-- {
		if utf8.RuneStart(buf[i]) {
			if !utf8.FullRune(buf[i:]) {
				cut = i
			}
			break
		}
	}
	if cut < len(buf) {
		w.pending = append([]byte(nil), buf[cut:]...)
	}
	if _, err := io.WriteString(w.w, Terminal(string(buf[:cut]))); err != nil {
		return 0, err
	}
	return len(p), nil
}
