// Package hcldiag holds what the HCL decoders of study files and task files
// share: a list of diagnostics with source ranges, a decoded block that
// knows where each of its attributes stands, and the rules for names. Each
// decoder checks meaning itself; this package only says where.
package hcldiag

import (
	"fmt"
	"reflect"
	"sort"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/gohcl"
	"github.com/hashicorp/hcl/v2/hclsyntax"
)

// List collects diagnostics.
type List struct {
	Diags hcl.Diagnostics
}

// Add appends diagnostics as they are.
func (l *List) Add(diags hcl.Diagnostics) { l.Diags = append(l.Diags, diags...) }

// Errorf appends an error diagnostic about rng.
func (l *List) Errorf(rng *hcl.Range, summary, format string, args ...any) {
	l.Diags = append(l.Diags, &hcl.Diagnostic{
		Severity: hcl.DiagError, Summary: summary, Detail: fmt.Sprintf(format, args...), Subject: rng,
	})
}

// Warnf appends a warning diagnostic about rng.
func (l *List) Warnf(rng *hcl.Range, summary, format string, args ...any) {
	l.Diags = append(l.Diags, &hcl.Diagnostic{
		Severity: hcl.DiagWarning, Summary: summary, Detail: fmt.Sprintf(format, args...), Subject: rng,
	})
}

// Block is one decoded block with the ranges of its attributes.
type Block struct {
	Block *hcl.Block
	Name  string // the first label, or ""
	Attrs hclsyntax.Attributes
	Bad   map[string]bool // attributes gohcl could not decode
}

// Decode decodes a block body into raw with gohcl (ctx may be nil) and
// returns the block with its attributes located. Diagnostics go to l.
// Input is strict: an attribute raw does not declare is an error at its
// name with the closest one it does (a remain body included), and so is a
// nested block, unless raw has a remain body: its decoder reads the
// nested blocks itself.
func Decode(l *List, b *hcl.Block, ctx *hcl.EvalContext, raw any) *Block {
	strict := &List{}
	checkRaw(strict, b.Body, reflect.TypeOf(raw), Where(b))
	diags := dropReported(gohcl.DecodeBody(b.Body, ctx, raw), strict.Diags)
	l.Add(strict.Diags)
	l.Add(diags)
	return Locate(b, diags)
}

// Locate returns the block with its attributes located, marking those that
// diags (from decoding it) are about as bad.
func Locate(b *hcl.Block, diags hcl.Diagnostics) *Block {
	bc := &Block{Block: b, Bad: map[string]bool{}}
	if len(b.Labels) > 0 {
		bc.Name = b.Labels[0]
	}
	if body, ok := b.Body.(*hclsyntax.Body); ok {
		bc.Attrs = body.Attributes
	}
	for _, diag := range diags {
		if diag.Subject == nil {
			continue
		}
		for name, a := range bc.Attrs {
			if a.SrcRange.Overlaps(*diag.Subject) {
				bc.Bad[name] = true
			}
		}
	}
	return bc
}

// Has reports whether an attribute is present, decoded or not.
func (b *Block) Has(name string) bool {
	_, ok := b.Attrs[name]
	return ok
}

// OK reports whether an attribute is present and decoded cleanly.
func (b *Block) OK(name string) bool { return b.Has(name) && !b.Bad[name] }

// Rng is the range of an attribute's value, or of the block header when
// the attribute is absent.
func (b *Block) Rng(name string) *hcl.Range {
	if a, ok := b.Attrs[name]; ok {
		r := a.Expr.Range()
		return &r
	}
	r := b.Block.DefRange
	return &r
}

// Header is the range of the block's header.
func (b *Block) Header() *hcl.Range {
	r := b.Block.DefRange
	return &r
}

// Label is the range of the block's first label, or its header.
func (b *Block) Label() *hcl.Range { return LabelRange(b.Block) }

// Elem is the range of element i of a list attribute.
func (b *Block) Elem(name string, i int) *hcl.Range {
	a, ok := b.Attrs[name]
	if !ok {
		return b.Rng(name)
	}
	if t, ok := a.Expr.(*hclsyntax.TupleConsExpr); ok && i < len(t.Exprs) {
		r := t.Exprs[i].Range()
		return &r
	}
	return b.Rng(name)
}

// Elem2 is the range of element j of element i of a list of lists.
func (b *Block) Elem2(name string, i, j int) *hcl.Range {
	a, ok := b.Attrs[name]
	if !ok {
		return b.Rng(name)
	}
	if t, ok := a.Expr.(*hclsyntax.TupleConsExpr); ok && i < len(t.Exprs) {
		if u, ok := t.Exprs[i].(*hclsyntax.TupleConsExpr); ok && j < len(u.Exprs) {
			r := u.Exprs[j].Range()
			return &r
		}
		r := t.Exprs[i].Range()
		return &r
	}
	return b.Rng(name)
}

// Key is the range of the value under key in a map attribute (an object
// constructor), or of the attribute when the key is not written literally.
func (b *Block) Key(name, key string) *hcl.Range {
	a, ok := b.Attrs[name]
	if !ok {
		return b.Rng(name)
	}
	if o, ok := a.Expr.(*hclsyntax.ObjectConsExpr); ok {
		for _, item := range o.Items {
			k, diags := item.KeyExpr.Value(nil)
			if !diags.HasErrors() && k.Type().FriendlyName() == "string" && k.IsKnown() && !k.IsNull() && k.AsString() == key {
				r := item.ValueExpr.Range()
				return &r
			}
		}
	}
	return b.Rng(name)
}

// KeyName is the range of a key (not its value) in a map attribute, or of
// the attribute when the key is not written literally.
func (b *Block) KeyName(name, key string) *hcl.Range {
	a, ok := b.Attrs[name]
	if !ok {
		return b.Rng(name)
	}
	if o, ok := a.Expr.(*hclsyntax.ObjectConsExpr); ok {
		for _, item := range o.Items {
			k, diags := item.KeyExpr.Value(nil)
			if !diags.HasErrors() && k.Type().FriendlyName() == "string" && k.IsKnown() && !k.IsNull() && k.AsString() == key {
				r := item.KeyExpr.Range()
				return &r
			}
		}
	}
	return b.Rng(name)
}

// LabelRange is the range of a block's first label, or its header.
func LabelRange(b *hcl.Block) *hcl.Range {
	if len(b.LabelRanges) > 0 {
		r := b.LabelRanges[0]
		return &r
	}
	r := b.DefRange
	return &r
}

// RangeString renders a range start as file:line:col.
func RangeString(r hcl.Range) string {
	return fmt.Sprintf("%s:%d:%d", r.Filename, r.Start.Line, r.Start.Column)
}

// ValidName reports whether s is a plain name: a letter or digit, then
// letters, digits, '.', '_' and '-'. Such names keep cell keys, run ids and
// file names unambiguous.
func ValidName(s string) bool {
	if s == "" {
		return false
	}
	for i, r := range s {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9':
		case i > 0 && (r == '.' || r == '_' || r == '-'):
		default:
			return false
		}
	}
	return true
}

// Sort orders diagnostics by file and position; those without a subject
// come first.
func Sort(diags hcl.Diagnostics) {
	sort.SliceStable(diags, func(i, j int) bool {
		a, b := diags[i].Subject, diags[j].Subject
		switch {
		case a == nil || b == nil:
			return a == nil && b != nil
		case a.Filename != b.Filename:
			return a.Filename < b.Filename
		}
		return a.Start.Byte < b.Start.Byte
	})
}

// Closest returns the valid name nearest to name in edit distance when
// one is within a third of the name's length (at least one edit, and fewer
// edits than the name has letters); else the only valid name that holds
// name (such as "audio_inject" for "audio"); else "".
func Closest(name string, valid []string) string {
	lower := strings.ToLower(name)
	best, bestD := "", min(max(1, len(name)/3), len(name)-1)+1
	var holding []string
	for _, v := range valid {
		lv := strings.ToLower(v)
		if d := editDistance(lower, lv); d < bestD {
			best, bestD = v, d
		}
		if len(lower) >= 3 && strings.Contains(lv, lower) {
			holding = append(holding, v)
		}
	}
	if best == "" && len(holding) == 1 {
		return holding[0]
	}
	return best
}

// editDistance is the edit distance of two short strings, a swap of two
// neighbouring letters counting as one edit ("nmae" is one from "name";
// optimal string alignment).
func editDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	d := make([][]int, len(ra)+1)
	for i := range d {
		d[i] = make([]int, len(rb)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(ra); i++ {
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(ra)][len(rb)]
}

// QuoteList renders names as "a", "b" or "c".
func QuoteList(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = fmt.Sprintf("%q", n)
	}
	switch len(q) {
	case 0:
		return "nothing"
	case 1:
		return q[0]
	}
	return strings.Join(q[:len(q)-1], ", ") + " or " + q[len(q)-1]
}
