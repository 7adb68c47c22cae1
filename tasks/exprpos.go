package tasks

import (
	"strings"
	"unicode/utf8"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
)

// An expression (CEL) is written as an HCL string: quoted, with escapes,
// or a heredoc, indented. A problem CEL finds is at a line and column of
// the string's value; locate turns that into the place in the file, so
// that validate points at the character itself.

// literal is one literal run of a string: its text in the file and the
// value HCL decoded from it.
type literal struct {
	rng hcl.Range
	raw []byte
	val string
}

// locator maps places in an expression's value to places in its file.
type locator struct {
	whole hcl.Range // the expression, for values it cannot map
	parts []literal // nil when the value is not a plain string literal
	// skip is what trimming took off the front of the value.
	skip string
}

// locate returns the locator of an expression's value, as read from src
// (the bytes of expr's file); trimmed says the value was trimmed of
// surrounding white space before it was compiled.
func locate(expr hcl.Expression, src []byte, trimmed bool) locator {
	l := locator{whole: expr.Range()}
	if k, ok := expr.(*hclsyntax.ObjectConsKeyExpr); ok {
		expr = k.Wrapped
		l.whole = expr.Range()
	}
	te, ok := expr.(*hclsyntax.TemplateExpr)
	if !ok {
		return l
	}
	var val strings.Builder
	for _, p := range te.Parts {
		lit, ok := p.(*hclsyntax.LiteralValueExpr)
		if !ok {
			return locator{whole: l.whole}
		}
		v, diags := lit.Value(nil)
		r := lit.Range()
		if diags.HasErrors() || !v.IsKnown() || v.IsNull() || r.End.Byte > len(src) || r.Start.Byte > r.End.Byte {
			return locator{whole: l.whole}
		}
		s := v.AsString()
		val.WriteString(s)
		l.parts = append(l.parts, literal{rng: r, raw: src[r.Start.Byte:r.End.Byte], val: s})
	}
	if trimmed {
		full := val.String()
		l.skip = full[:len(full)-len(strings.TrimLeft(full, " \t\r\n"))]
	}
	return l
}

// pos is the place in the file of the character at line and column (from
// 1, columns in characters) of the expression's value as compiled, and
// whether it could be mapped; else the expression's start.
func (l locator) pos(line, col int) (hcl.Pos, bool) {
	if l.parts == nil {
		return l.whole.Start, false
	}
	// The offset, in characters, of the place in the untrimmed value.
	off := utf8.RuneCountInString(l.skip)
	lines := strings.Split(l.value()[len(l.skip):], "\n")
	for i := 0; i < line-1 && i < len(lines); i++ {
		off += utf8.RuneCountInString(lines[i]) + 1
	}
	off += col - 1
	for _, p := range l.parts {
		n := utf8.RuneCountInString(p.val)
		if off < n || p.val == "" {
			if b, ok := align(p, off); ok {
				return advance(p.rng.Start, p.raw[:b]), true
			}
			return p.rng.Start, true
		}
		off -= n
	}
	last := l.parts[len(l.parts)-1]
	return last.rng.End, true
}

// value is the whole value before trimming.
func (l locator) value() string {
	var b strings.Builder
	for _, p := range l.parts {
		b.WriteString(p.val)
	}
	return b.String()
}

// align returns the byte offset in p.raw of the character at rune offset
// off of p.val: escapes (\n, \", \uXXXX), the doubled $${ and %%{, and a
// heredoc's indentation, which its value lacks, are stepped over.
func align(p literal, off int) (int, bool) {
	raw, val := p.raw, p.val
	i := 0
	for n := 0; n < off && val != ""; n++ {
		r, size := utf8.DecodeRuneInString(val)
		val = val[size:]
		for i < len(raw) {
			switch {
			case raw[i] == '\\' && i+1 < len(raw):
				i += escapeLen(raw[i:])
			case (raw[i] == '$' || raw[i] == '%') && i+2 < len(raw) && raw[i+1] == raw[i] && raw[i+2] == '{' && byte(r) == raw[i]:
				i += 2
			default:
				rr, rs := utf8.DecodeRune(raw[i:])
				i += rs
				if rr != r {
					continue // indentation the value lacks
				}
			}
			break
		}
	}
	// Skip indentation before the character itself.
	if val != "" {
		r, _ := utf8.DecodeRuneInString(val)
		for i < len(raw) && raw[i] != byte(r) && (raw[i] == ' ' || raw[i] == '\t') {
			i++
		}
	}
	return i, i <= len(raw)
}

// escapeLen is the length of the escape sequence at the start of b.
func escapeLen(b []byte) int {
	switch b[1] {
	case 'u':
		return min(len(b), 6)
	case 'U':
		return min(len(b), 10)
	}
	return 2
}

// advance is the position after raw, written from start.
func advance(start hcl.Pos, raw []byte) hcl.Pos {
	p := start
	for len(raw) > 0 {
		r, size := utf8.DecodeRune(raw)
		raw = raw[size:]
		p.Byte += size
		if r == '\n' {
			p.Line++
			p.Column = 1
			continue
		}
		p.Column++
	}
	return p
}

// at is a one-character range at a position of file.
func at(file string, p hcl.Pos) *hcl.Range {
	end := p
	end.Column++
	end.Byte++
	return &hcl.Range{Filename: file, Start: p, End: end}
}
