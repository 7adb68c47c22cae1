package tasks

import (
	"slices"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"

	"github.com/killchain/killchain/internal/hcldiag"
)

// Defs is what some task files define, each block decoded and checked as
// far as it can be alone. Link resolves the names they give one another:
// a task may name an environment of another file of the same study, or a
// built-in one.
type Defs struct {
	tasks  []*Task            // in the order declared
	users  map[*Task]*decoder // those over an environment, checked once linked
	envs   []*Environment
	injs   []*pendingInjection
	suites []*pendingSuite
	// failed are the blocks with errors ("environment bank", "injection
	// x", "task y") and the environments some of whose tasks or
	// injections have errors ("tasks of bank", "injection on bank"): what
	// follows from them is not reported again.
	failed map[string]bool
}

// fail remembers a block that did not decode ("environment bank"), or
// that something of an environment did not ("tasks of bank").
func (df *Defs) fail(kind, name string) {
	if kind == "" || name == "" {
		return
	}
	if df.failed == nil {
		df.failed = map[string]bool{}
	}
	df.failed[kind+" "+name] = true
}

// ParseFile decodes a task file alone, linked with the built-ins (a task
// may name a built-in environment), and returns its tasks and every
// problem, each with its source range. Its attack blocks are the loading
// study's to decode.
func ParseFile(o Origin, src []byte) ([]*Task, hcl.Diagnostics) {
	defs, diags := ParseDefs(o, src)
	l := &hcldiag.List{Diags: diags}
	_, own := Link(l, Builtin(), defs)
	hcldiag.Sort(l.Diags)
	return own, unique(l.Diags)
}

// ParseDefs decodes a task file's task, environment, injection and suite
// blocks, each checked as far as it can be alone; Link resolves the names
// they give one another and finishes the checks.
func ParseDefs(o Origin, src []byte) (*Defs, hcl.Diagnostics) {
	file, diags := hclsyntax.ParseConfig(src, o.File, hcl.Pos{Line: 1, Column: 1})
	if diags.HasErrors() {
		return &Defs{}, diags
	}
	l := &hcldiag.List{Diags: diags}
	content := hcldiag.Content(l, file.Body, FileSchema, "A task file")
	CheckPlaceholders(l, o.File, src, file.Body, DecodedBlocks...)
	defs := DecodeBlocks(l, o, src, content.Blocks)
	hcldiag.Sort(l.Diags)
	l.Diags = unique(l.Diags)
	return defs, l.Diags
}

// DecodeBlocks decodes the task, environment, injection and suite blocks
// among blocks, from src (the bytes of the file holding them: a task file,
// or a study file's own blocks); other blocks are left alone. Problems go
// to l; a block with errors is left out.
func DecodeBlocks(l *hcldiag.List, o Origin, src []byte, blocks []*hcl.Block) *Defs {
	defs := &Defs{}
	for _, b := range blocks {
		if !slices.Contains(DecodedBlocks, b.Type) {
			continue
		}
		// A block with a {{…}} that would stay as written is decoded for
		// its other problems, and left out.
		into := defs
		if !checkBlockPlaceholders(l, o.File, src, b) {
			into = &Defs{}
			if len(b.Labels) > 0 {
				defs.fail(b.Type, b.Labels[0])
			}
			switch b.Type {
			case "task":
				defs.fail("tasks of", envAttr(b))
			case "injection":
				defs.fail("injection on", envAttr(b))
			}
		}
		switch b.Type {
		case "task":
			decodeTask(l, o, src, b, into)
		case "environment":
			if e := newDecoder(l, o, src).environment(b); e != nil {
				into.envs = append(into.envs, e)
			} else if len(b.Labels) > 0 {
				defs.fail("environment", b.Labels[0])
			}
		case "injection":
			if p := newDecoder(l, o, src).injection(b); p != nil {
				into.injs = append(into.injs, p)
			} else if len(b.Labels) > 0 {
				defs.fail("injection", b.Labels[0])
				defs.fail("injection on", envAttr(b))
			}
		case "suite":
			if p := newDecoder(l, o, src).suite(b); p != nil {
				into.suites = append(into.suites, p)
			}
		}
		if into != defs {
			for k := range into.failed {
				if defs.failed == nil {
					defs.failed = map[string]bool{}
				}
				defs.failed[k] = true
			}
		}
	}
	return defs
}

// decodeTask decodes and checks one task block. A task that names an
// environment is checked when Link has found it.
func decodeTask(l *hcldiag.List, o Origin, src []byte, b *hcl.Block, defs *Defs) {
	before := errorCount(l.Diags)
	d := newDecoder(l, o, src)
	t := d.task(b)
	// What could not be decoded would only raise errors that follow from
	// it: the task is checked once it decodes.
	if t == nil || errorCount(l.Diags) > before {
		if d.envName != "" {
			defs.fail("tasks of", d.envName)
			defs.fail("task", d.taskBlock.Name)
		}
		return
	}
	t.Source = Source{File: o.File, Text: blockText(src, b), Range: *hcldiag.LabelRange(b)}
	if d.envName != "" {
		if defs.users == nil {
			defs.users = map[*Task]*decoder{}
		}
		defs.users[t] = d
		defs.tasks = append(defs.tasks, t)
		return
	}
	d.check(t)
	if errorCount(l.Diags) == before {
		defs.tasks = append(defs.tasks, t)
	}
}

// envAttr is the environment a block names, as written ("" when it is
// not a plain string).
func envAttr(b *hcl.Block) string {
	sb, ok := b.Body.(*hclsyntax.Body)
	if !ok || sb.Attributes["environment"] == nil {
		return ""
	}
	v, diags := sb.Attributes["environment"].Expr.Value(nil)
	if diags.HasErrors() || v.IsNull() || !v.IsKnown() || v.Type() != cty.String {
		return ""
	}
	return strings.TrimSpace(v.AsString())
}

// newDecoder returns a decoder of one block of a file.
func newDecoder(l *hcldiag.List, o Origin, src []byte) *decoder {
	d := &decoder{l: l, o: o, src: src, items: map[string]*hcl.Range{}}
	d.ctx = evalContext(o, func(r read) {
		d.reads = append(d.reads, r)
		checkFileBraces(l, o.File, r.name, r.data)
	})
	return d
}

// blockText is a block as written, header to closing brace.
func blockText(src []byte, b *hcl.Block) []byte {
	if r := blockRange(b); r.End.Byte <= len(src) && r.Start.Byte < r.End.Byte {
		return append([]byte(nil), src[r.Start.Byte:r.End.Byte]...)
	}
	return nil
}

// unique drops a diagnostic that repeats the one before it (a file two
// expressions read is checked twice).
func unique(diags hcl.Diagnostics) hcl.Diagnostics {
	out := diags[:0:0]
	for i, d := range diags {
		if i > 0 {
			p := diags[i-1]
			if p.Summary == d.Summary && p.Detail == d.Detail && p.Severity == d.Severity &&
				(p.Subject == nil) == (d.Subject == nil) && (p.Subject == nil || *p.Subject == *d.Subject) {
				continue
			}
		}
		out = append(out, d)
	}
	return out
}
