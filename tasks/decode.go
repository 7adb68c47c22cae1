package tasks

import (
	"io/fs"
	"slices"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/function"
	"github.com/zclconf/go-cty/cty/function/stdlib"

	"github.com/killchain/killchain/internal/hcldiag"
)

// FileSchema is the top level of a task file: task blocks, and attack
// blocks (attack families of the researcher's own), which ParseFile leaves
// to the study that loads the file.
var FileSchema = &hcl.BodySchema{Blocks: []hcl.BlockHeaderSchema{
	{Type: "task", LabelNames: []string{"name"}},
	{Type: "attack", LabelNames: []string{"name"}},
}}

// Raw block bodies as gohcl decodes them; pointers tell "absent" apart
// from a zero value. Nested blocks are read from the body apart, so that
// each keeps its ranges.
type rawTask struct {
	Description      *string           `hcl:"description,optional"`
	Family           *string           `hcl:"family,optional"`
	Mode             *string           `hcl:"mode,optional"`
	PayloadTools     []string          `hcl:"payload_tools,optional"`
	ConditionPrompts map[string]string `hcl:"condition_prompts,optional"`
	AttackGoalOnly   *bool             `hcl:"attack_goal_only,optional"`
	Override         *bool             `hcl:"override,optional"`
	ToolsFrom        *string           `hcl:"tools_from,optional"`
	Body             hcl.Body          `hcl:",remain"`
}

type rawRole struct {
	System    string   `hcl:"system"`
	Prompt    string   `hcl:"prompt"`
	Level     string   `hcl:"level"`
	Tools     []string `hcl:"tools"`
	ToolsFrom *string  `hcl:"tools_from,optional"`
	Servers   []string `hcl:"servers,optional"`
}

type rawVariant struct {
	Surface    *string           `hcl:"surface,optional"`
	Payload    *string           `hcl:"payload,optional"`
	Payloads   map[string]string `hcl:"payloads,optional"`
	Placements []string          `hcl:"placements,optional"`
}

type rawGoal struct {
	Recipient *string  `hcl:"recipient,optional"`
	KeyFacts  []string `hcl:"key_facts,optional"`
}

type rawAttack struct {
	Address          *string  `hcl:"address,optional"`
	Tools            []string `hcl:"tools,optional"`
	ProtectedRecords []string `hcl:"protected_records,optional"`
}

type rawText struct {
	Text string `hcl:"text"`
}

type rawRecord struct {
	Title string `hcl:"title"`
	Text  string `hcl:"text"`
}

type rawDocument struct {
	Title     *string `hcl:"title,optional"`
	Author    *string `hcl:"author,optional"`
	Subject   *string `hcl:"subject,optional"`
	Keywords  *string `hcl:"keywords,optional"`
	Abstract  *string `hcl:"abstract,optional"`
	Body      string  `hcl:"body"`
	Appended  *string `hcl:"appended,optional"`
	WhiteText *string `hcl:"white_text,optional"`
	Metadata  *string `hcl:"metadata,optional"`
}

type rawClip struct {
	Script string `hcl:"script"`
}

type rawTool struct {
	Description string   `hcl:"description"`
	Level       *string  `hcl:"level,optional"`
	Parameters  *string  `hcl:"parameters,optional"`
	Outbound    *bool    `hcl:"outbound,optional"`
	Untrusted   *bool    `hcl:"untrusted,optional"`
	RugPull     *string  `hcl:"rug_pull,optional"`
	Shadows     *string  `hcl:"shadows,optional"`
	Body        hcl.Body `hcl:",remain"`
}

type rawResult struct {
	When map[string]string `hcl:"when,optional"`
	Text string            `hcl:"text"`
}

type rawWorkspace struct {
	Dir         *string           `hcl:"dir,optional"`
	TestCommand string            `hcl:"test_command"`
	TestTimeout *string           `hcl:"test_timeout,optional"`
	Solution    []string          `hcl:"solution"`
	HonestPath  *string           `hcl:"honest_path,optional"`
	Vars        map[string]string `hcl:"vars,optional"`
	Body        hcl.Body          `hcl:",remain"`
}

type rawFile struct {
	Text   *string `hcl:"text,optional"`
	Source *string `hcl:"source,optional"`
}

type rawProtect struct {
	Role string `hcl:"role"`
}

type rawHeldOut struct {
	Dir             *string  `hcl:"dir,optional"`
	Generator       *string  `hcl:"generator,optional"`
	SolutionCommand *string  `hcl:"solution_command,optional"`
	CaseTimeout     *string  `hcl:"case_timeout,optional"`
	Meaning         *string  `hcl:"meaning,optional"`
	Body            hcl.Body `hcl:",remain"`
}

// Nested block types, each with its labels.
var (
	taskBlocks = map[string]int{"role": 1, "variant": 1, "goal": 0, "attack": 0, "page": 1, "note": 1, "record": 1,
		"document": 1, "clip": 1, "tool": 1, "workspace": 0, "server": 1}
	toolBlocks      = map[string]int{"result": 0}
	workspaceBlocks = map[string]int{"file": 1, "protect": 1, "held_out": 0}
	heldOutBlocks   = map[string]int{"file": 1}
)

// Origin is where a task file's relative paths resolve: file() and
// workspace folders are read from FS, rooted at the folder that holds the
// task file (or the study file holding the block). No path may leave it,
// and no link inside it is followed: DirOrigin builds one over a folder on
// disk (see files.go).
type Origin struct {
	FS   fs.FS
	File string // the file name diagnostics carry
}

// ParseFile decodes a task file's task blocks (its attack blocks are the
// loading study's to decode). It returns the tasks it could decode and
// every problem, each with its source range.
func ParseFile(o Origin, src []byte) ([]*Task, hcl.Diagnostics) {
	file, diags := hclsyntax.ParseConfig(src, o.File, hcl.Pos{Line: 1, Column: 1})
	if diags.HasErrors() {
		return nil, diags
	}
	content, cdiags := file.Body.Content(FileSchema)
	l := &hcldiag.List{Diags: append(diags, cdiags...)}
	var out []*Task
	for _, b := range content.Blocks {
		if b.Type != "task" {
			continue
		}
		if t := DecodeBlock(l, o, src, b); t != nil {
			out = append(out, t)
		}
	}
	hcldiag.Sort(l.Diags)
	return out, l.Diags
}

// DecodeBlock decodes and checks one task block from src (the bytes of the
// file holding it). Problems go to l; the task is nil when the block has
// errors.
func DecodeBlock(l *hcldiag.List, o Origin, src []byte, b *hcl.Block) *Task {
	before := errorCount(l.Diags)
	d := &decoder{l: l, o: o, ctx: evalContext(o)}
	t := d.task(b)
	// What could not be decoded would only raise errors that follow from
	// it: the task is checked once it decodes.
	if t != nil && errorCount(l.Diags) == before {
		if r := blockRange(b); r.End.Byte <= len(src) && r.Start.Byte < r.End.Byte {
			t.Source.Text = append([]byte(nil), src[r.Start.Byte:r.End.Byte]...)
		}
		t.Source.File = o.File
		t.Source.Range = *hcldiag.LabelRange(b)
		d.check(t)
	}
	if errorCount(l.Diags) > before {
		return nil
	}
	return t
}

// blockRange is the whole range of a block, header to closing brace.
func blockRange(b *hcl.Block) hcl.Range {
	if sb, ok := b.Body.(*hclsyntax.Body); ok {
		return hcl.RangeBetween(b.TypeRange, sb.SrcRange)
	}
	return b.DefRange
}

func errorCount(diags hcl.Diagnostics) int {
	n := 0
	for _, d := range diags {
		if d.Severity == hcl.DiagError {
			n++
		}
	}
	return n
}

// decoder carries the state of decoding one task block.
type decoder struct {
	l   *hcldiag.List
	o   Origin
	ctx *hcl.EvalContext
	// ranges of what later checks point at
	taskBlock *hcldiag.Block
	roles     []*hcldiag.Block
	variants  []*hcldiag.Block
	goal      *hcldiag.Block
	attack    *hcldiag.Block
	tools     []*hcldiag.Block
	servers   []*hcldiag.Block
	ws        *hcldiag.Block
	items     map[string]*hcl.Range // "page <url>", "tool <name>" … → label range
}

// evalContext offers file(PATH), read from the task's folder, and
// jsonencode(VALUE) to task files.
func evalContext(o Origin) *hcl.EvalContext {
	file := function.New(&function.Spec{
		Params: []function.Parameter{{Name: "path", Type: cty.String}},
		Type:   function.StaticReturnType(cty.String),
		Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
			data, err := readLocal(o.FS, args[0].AsString())
			if err != nil {
				return cty.NilVal, err
			}
			return cty.StringVal(string(data)), nil
		},
	})
	return &hcl.EvalContext{Functions: map[string]function.Function{
		"file": file, "jsonencode": stdlib.JSONEncodeFunc, "trimspace": stdlib.TrimSpaceFunc,
	}}
}

// nested returns a body's nested blocks, reporting unknown types and a
// wrong number of labels against allowed.
func (d *decoder) nested(body hcl.Body, allowed map[string]int, where string) []*hcl.Block {
	sb, ok := body.(*hclsyntax.Body)
	if !ok {
		return nil
	}
	var out []*hcl.Block
	for _, b := range sb.Blocks {
		hb := b.AsHCLBlock()
		n, known := allowed[b.Type]
		switch {
		case !known:
			names := make([]string, 0, len(allowed))
			for k := range allowed {
				names = append(names, k)
			}
			slices.Sort(names)
			d.l.Errorf(&hb.TypeRange, "Unsupported block type", "%s holds no %q block; it may hold %s.", where, b.Type, strings.Join(names, ", "))
		case len(b.Labels) != n:
			d.l.Errorf(&hb.DefRange, "Wrong number of labels", "A %s block takes %d label(s); this one has %d.", b.Type, n, len(b.Labels))
		default:
			out = append(out, hb)
		}
	}
	return out
}

// only reports every block of a type after the first.
func (d *decoder) only(blocks []*hcl.Block, kind string) *hcl.Block {
	var first *hcl.Block
	for _, b := range blocks {
		if b.Type != kind {
			continue
		}
		if first != nil {
			d.l.Errorf(&b.DefRange, "Duplicate "+kind+" block", "A task holds one %s block; the first is at %s.", kind, hcldiag.RangeString(first.DefRange))
			continue
		}
		first = b
	}
	return first
}

// unique reports a label seen before under key, and remembers it.
func (d *decoder) unique(kind, key string, b *hcl.Block) bool {
	k := kind + " " + key
	if prev, dup := d.items[k]; dup {
		d.l.Errorf(hcldiag.LabelRange(b), "Duplicate "+kind, "A %s %q was already declared at %s.", kind, key, hcldiag.RangeString(*prev))
		return false
	}
	d.items[k] = hcldiag.LabelRange(b)
	return true
}

func deref[T any](p *T, def T) T {
	if p == nil {
		return def
	}
	return *p
}

// trimmed is s without surrounding white space: every text of a task but
// a workspace file's is read that way.
func trimmed(s string) string { return strings.TrimSpace(s) }

func trimAll(list []string) []string {
	if list == nil {
		return nil
	}
	out := make([]string, len(list))
	for i, s := range list {
		out[i] = trimmed(s)
	}
	return out
}

func trimMap(m map[string]string) map[string]string {
	if m == nil {
		return nil
	}
	out := make(map[string]string, len(m))
	for k, v := range m {
		out[k] = trimmed(v)
	}
	return out
}
