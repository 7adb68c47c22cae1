package hcldiag

import (
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/gohcl"
	"github.com/hashicorp/hcl/v2/hclsyntax"
)

// Strict input: every attribute and block a decoder does not know is an
// error at its name, with the closest name it does know. gohcl reports
// unknown attributes only where a body has no remain field, and with its
// own wording; a decoder with a remain body (which reads its nested blocks
// apart) would drop them silently. These helpers say it the same way
// everywhere, whatever the raw struct.

// Summaries of the strictness errors.
const (
	UnknownAttribute = "Unknown attribute"
	UnknownBlock     = "Unknown block type"
)

// CheckBody reports every attribute of body not in attrs and, unless
// blocks is nil, every nested block whose type is not in blocks. where
// names the body in messages ("A task block").
func CheckBody(l *List, body hcl.Body, attrs, blocks []string, where string) {
	sb, ok := body.(*hclsyntax.Body)
	if !ok {
		return
	}
	for _, name := range sortedAttrs(sb) {
		if slices.Contains(attrs, name) {
			continue
		}
		a := sb.Attributes[name]
		rng := a.NameRange
		l.Errorf(&rng, UnknownAttribute, "%s takes no attribute %q%s.", where, name, Suggest(name, attrs, "attributes"))
	}
	if blocks == nil {
		return
	}
	for _, b := range sb.Blocks {
		if slices.Contains(blocks, b.Type) {
			continue
		}
		rng := b.TypeRange
		l.Errorf(&rng, UnknownBlock, "%s holds no %q block%s.", where, b.Type, Suggest(b.Type, blocks, "blocks"))
	}
}

// Suggest renders the tail of an unknown-name message: the closest known
// name, then every known one.
func Suggest(name string, known []string, what string) string {
	if len(known) == 0 {
		return "; it takes no " + what
	}
	sorted := slices.Clone(known)
	slices.Sort(sorted)
	hint := ""
	if best := Closest(name, sorted); best != "" {
		hint = fmt.Sprintf("; did you mean %q?", best)
	}
	return fmt.Sprintf("%s (its %s: %s)", hint, what, strings.Join(sorted, ", "))
}

func sortedAttrs(sb *hclsyntax.Body) []string {
	names := make([]string, 0, len(sb.Attributes))
	for n := range sb.Attributes {
		names = append(names, n)
	}
	slices.SortFunc(names, func(a, b string) int {
		return sb.Attributes[a].SrcRange.Start.Byte - sb.Attributes[b].SrcRange.Start.Byte
	})
	return names
}

// checkRaw reports what body holds that raw (a gohcl struct) does not
// declare: attributes always; nested blocks only when raw has no remain
// field (a decoder with one reads its blocks itself and reports unknown
// ones there). Blocks raw declares are checked against their own struct.
func checkRaw(l *List, body hcl.Body, raw reflect.Type, where string) {
	for raw.Kind() == reflect.Pointer {
		raw = raw.Elem()
	}
	if raw.Kind() != reflect.Struct {
		return
	}
	schema, partial := gohcl.ImpliedBodySchema(reflect.New(raw).Interface())
	attrs := make([]string, len(schema.Attributes))
	for i, a := range schema.Attributes {
		attrs[i] = a.Name
	}
	var blocks []string
	if !partial {
		blocks = []string{}
		for _, b := range schema.Blocks {
			blocks = append(blocks, b.Type)
		}
	}
	CheckBody(l, body, attrs, blocks, where)
	sb, ok := body.(*hclsyntax.Body)
	if !ok {
		return
	}
	for _, b := range sb.Blocks {
		if ft, ok := blockField(raw, b.Type); ok {
			checkRaw(l, b.Body, ft, whereType(b.Type))
		}
	}
}

// blockField is the struct type of raw's field tagged as a block of typ.
func blockField(raw reflect.Type, typ string) (reflect.Type, bool) {
	for i := range raw.NumField() {
		f := raw.Field(i)
		name, kind, _ := strings.Cut(f.Tag.Get("hcl"), ",")
		if name != typ || kind != "block" {
			continue
		}
		t := f.Type
		for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice {
			t = t.Elem()
		}
		return t, true
	}
	return nil, false
}

// dropReported removes gohcl's own reports of an unknown argument or
// block type where a strictness error already stands at the same place.
func dropReported(diags, ours hcl.Diagnostics) hcl.Diagnostics {
	if len(ours) == 0 {
		return diags
	}
	out := diags[:0:0]
	for _, d := range diags {
		if (d.Summary == "Unsupported argument" || d.Summary == "Unsupported block type") && d.Subject != nil &&
			slices.ContainsFunc(ours, func(o *hcl.Diagnostic) bool { return o.Subject != nil && o.Subject.Start == d.Subject.Start }) {
			continue
		}
		out = append(out, d)
	}
	return out
}

// Where names a block in messages: "A task block".
func Where(b *hcl.Block) string { return whereType(b.Type) }

func whereType(typ string) string {
	if typ != "" && strings.ContainsRune("aeiou", rune(typ[0])) {
		return "An " + typ + " block"
	}
	return "A " + typ + " block"
}

// Content is body.Content(schema), strictly: an unknown attribute or block
// type is reported as CheckBody reports it, in place of HCL's own wording.
// where names the body ("A study file").
func Content(l *List, body hcl.Body, schema *hcl.BodySchema, where string) *hcl.BodyContent {
	attrs := make([]string, len(schema.Attributes))
	for i, a := range schema.Attributes {
		attrs[i] = a.Name
	}
	blocks := make([]string, len(schema.Blocks))
	for i, b := range schema.Blocks {
		blocks[i] = b.Type
	}
	strict := &List{}
	CheckBody(strict, body, attrs, blocks, where)
	content, diags := body.Content(schema)
	l.Add(strict.Diags)
	l.Add(dropReported(diags, strict.Diags))
	return content
}
