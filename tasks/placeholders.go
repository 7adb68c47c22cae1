package tasks

import (
	"fmt"
	"path"
	"regexp"
	"slices"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"

	"github.com/killchain/killchain/internal/attacks"
	"github.com/killchain/killchain/internal/hcldiag"
)

// Placeholders are checked where they are written: a {{…}} that no
// placeholder of its context is (a typo such as {{PAYLAOD}}, an invented
// {{VICTIM}}) would stay in the text as it is, so it is an error at its
// own line, in every text of a task, environment, injection, suite,
// attack or study file and of the files they read with file().

// GoalPlaceholder is filled, in an attack template, with an injection's
// goal sentence.
const GoalPlaceholder = "{{GOAL}}"

// braceRE matches anything written between double braces.
var braceRE = regexp.MustCompile(`\{\{([^{}\n]{1,64})\}\}`)

// looksLikePlaceholder reports whether what stands between braces was
// meant as one of c's placeholders: an upper-case name (with a :part), or
// one of c's names in another case or with spaces. {{ .Name }} or
// {{user}} in a page's content are left alone.
func (c phContext) looksLikePlaceholder(inner string) bool {
	name, _, _ := strings.Cut(strings.TrimSpace(inner), ":")
	if name == "" {
		return false
	}
	upper := true
	for _, r := range name {
		switch {
		case r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '_':
		default:
			upper = false
		}
	}
	if upper && name[0] >= 'A' && name[0] <= 'Z' {
		return true
	}
	return slices.ContainsFunc(c.names, func(k string) bool { return strings.EqualFold(strings.TrimSuffix(k, ":"), name) })
}

// phContext says which placeholders a text may hold.
type phContext struct {
	what  string   // for messages: "a task's texts"
	names []string // the placeholders it may hold, {{PAYLOAD:x}} as "PAYLOAD:"
	// every says that any {{name}} is meant as a placeholder (an attack
	// template holds nothing else between double braces).
	every bool
}

var (
	textContext = phContext{"the texts of tasks, environments, injections and studies",
		[]string{"PAYLOAD", "PAYLOAD:", "CANARY", "ATTACKER", "HANDOFF"}, false}
	attackContext = phContext{"an attack template", attackNames(), true}
	fileContext   = phContext{"a file a task reads", append(slices.Clone(textContext.names), attackNames()...), false}
)

func attackNames() []string {
	out := []string{"GOAL"}
	for _, p := range attacks.Placeholders {
		out = append(out, strings.Trim(p, "{}"))
	}
	return out
}

// found is one {{…}} written in a text, where it stands.
type found struct {
	inner string
	rng   hcl.Range
}

// scanBraces finds every {{…}} in raw, written at start of file.
func scanBraces(file string, raw []byte, start hcl.Pos) []found {
	var out []found
	for _, m := range braceRE.FindAllSubmatchIndex(raw, -1) {
		s := advance(start, raw[:m[0]])
		e := advance(s, raw[m[0]:m[1]])
		out = append(out, found{inner: string(raw[m[2]:m[3]]), rng: hcl.Range{Filename: file, Start: s, End: e}})
	}
	return out
}

// allowed reports whether inner is a placeholder of c.
func (c phContext) allowed(inner string) bool {
	name, part, hasPart := strings.Cut(inner, ":")
	if hasPart {
		return slices.Contains(c.names, name+":") && placementNameRE.MatchString(part)
	}
	return slices.Contains(c.names, name)
}

var (
	placementNameRE = regexp.MustCompile(`^[A-Za-z0-9_-]+$`)
	identRE         = regexp.MustCompile(`^\s*[A-Za-z_][A-Za-z0-9_]*(:[^{}]*)?\s*$`)
)

// checkBraces reports the {{…}} of one text that are not placeholders of
// c; extra are names allowed besides (a workspace's vars).
func checkBraces(l *hcldiag.List, fs []found, c phContext, extra ...string) {
	for _, f := range fs {
		if c.allowed(f.inner) || slices.Contains(extra, f.inner) || !c.every && !c.looksLikePlaceholder(f.inner) || !identRE.MatchString(f.inner) && c.every {
			continue
		}
		rng := f.rng
		l.Errorf(&rng, "Unknown placeholder", "{{%s}} is not a placeholder of %s, so it would stay in the text as written%s.",
			f.inner, c.what, placeholderHint(f.inner, c, extra))
	}
}

// placeholderHint suggests the closest placeholder and lists them.
func placeholderHint(inner string, c phContext, extra []string) string {
	var names, list []string
	for _, n := range append(slices.Clone(c.names), extra...) {
		shown := "{{" + n + "}}"
		if strings.HasSuffix(n, ":") {
			shown = "{{" + n + "name}}"
		}
		if !slices.Contains(list, shown) {
			names, list = append(names, strings.TrimSuffix(n, ":")), append(list, shown)
		}
	}
	name, part, hasPart := strings.Cut(strings.TrimSpace(inner), ":")
	hint := ""
	switch best := hcldiag.Closest(name, names); {
	case name == "PAYLOAD" && hasPart && !placementNameRE.MatchString(part):
		hint = "; a placement's name is letters, digits, '_' and '-'"
	case best != "" && hasPart && slices.Contains(c.names, best+":"):
		hint = fmt.Sprintf("; did you mean {{%s:%s}}?", best, part)
	case best != "" && !hasPart:
		hint = fmt.Sprintf("; did you mean {{%s}}?", best)
	}
	return hint + " (the placeholders here: " + strings.Join(list, ", ") + ")"
}

// CheckPlaceholders reports every {{…}} written in a file's blocks that
// is not a placeholder where it stands: attack templates take the attack
// library's, a workspace file {{CANARY}} and its vars, every other text
// the payload placeholders. src is the file's bytes. DecodeBlocks checks
// the task, environment, injection and suite blocks itself (a block with
// such an error is left out); skip names block types to leave alone.
func CheckPlaceholders(l *hcldiag.List, file string, src []byte, body hcl.Body, skip ...string) {
	sb, ok := body.(*hclsyntax.Body)
	if !ok {
		return
	}
	for _, b := range sb.Blocks {
		if !slices.Contains(skip, b.Type) {
			checkBlockPlaceholders(l, file, src, b.AsHCLBlock())
		}
	}
}

// DecodedBlocks are the block types DecodeBlocks decodes (and checks the
// placeholders of).
var DecodedBlocks = []string{"task", "environment", "injection", "suite"}

// checkBlockPlaceholders checks one top-level block and reports whether
// it is free of unknown placeholders.
func checkBlockPlaceholders(l *hcldiag.List, file string, src []byte, b *hcl.Block) bool {
	body, ok := b.Body.(*hclsyntax.Body)
	if !ok {
		return true
	}
	c := textContext
	if b.Type == "attack" {
		c = attackContext
	}
	before := errorCount(l.Diags)
	checkBody(l, file, src, body, c, nil)
	return errorCount(l.Diags) == before
}

// checkBody checks every attribute of body, and its blocks, in context c.
func checkBody(l *hcldiag.List, file string, src []byte, body *hclsyntax.Body, c phContext, extra []string) {
	for _, name := range attrOrder(body) {
		r := body.Attributes[name].Expr.Range()
		if r.End.Byte > len(src) || r.Start.Byte > r.End.Byte {
			continue
		}
		checkBraces(l, scanBraces(file, src[r.Start.Byte:r.End.Byte], r.Start), c, extra...)
	}
	for _, b := range body.Blocks {
		switch b.Type {
		case "workspace", "held_out":
			// Workspace files are kept byte for byte: {{CANARY}} and the
			// workspace's vars are theirs.
			checkBody(l, file, src, b.Body, phContext{"a workspace file", []string{"CANARY"}, false}, append(extra, varNames(b.Body)...))
		default:
			checkBody(l, file, src, b.Body, c, extra)
		}
	}
}

// varNames are the keys of a workspace's vars, as written.
func varNames(body *hclsyntax.Body) []string {
	a, ok := body.Attributes["vars"]
	if !ok {
		return nil
	}
	o, ok := a.Expr.(*hclsyntax.ObjectConsExpr)
	if !ok {
		return nil
	}
	var out []string
	for _, it := range o.Items {
		if k, diags := it.KeyExpr.Value(nil); !diags.HasErrors() && k.IsKnown() && !k.IsNull() && k.Type().FriendlyName() == "string" {
			out = append(out, k.AsString())
		}
	}
	return out
}

func attrOrder(body *hclsyntax.Body) []string {
	names := make([]string, 0, len(body.Attributes))
	for n := range body.Attributes {
		names = append(names, n)
	}
	slices.SortFunc(names, func(a, b string) int {
		return body.Attributes[a].SrcRange.Start.Byte - body.Attributes[b].SrcRange.Start.Byte
	})
	return names
}

// checkFileBraces checks the {{…}} of a file read with file(): name is
// its path beside the task file, which diagnostics carry.
func checkFileBraces(l *hcldiag.List, origin, name string, data []byte) {
	file := path.Join(path.Dir(origin), name)
	checkBraces(l, scanBraces(file, data, hcl.Pos{Line: 1, Column: 1}), fileContext)
}
