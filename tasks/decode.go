package tasks

import (
	"io/fs"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/function"
	"github.com/zclconf/go-cty/cty/function/stdlib"

	"github.com/killchain/killchain/internal/hcldiag"
)

// FileSchema is the top level of a task file: task, environment,
// injection and suite blocks, and attack blocks (attack families of the
// researcher's own), which ParseDefs leaves to the study that loads the
// file.
var FileSchema = &hcl.BodySchema{Blocks: []hcl.BlockHeaderSchema{
	{Type: "task", LabelNames: []string{"name"}},
	{Type: "environment", LabelNames: []string{"name"}},
	{Type: "injection", LabelNames: []string{"name"}},
	{Type: "suite", LabelNames: []string{"name"}},
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
	Environment      *string           `hcl:"environment,optional"`
	Helpful          *bool             `hcl:"helpful,optional"`
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
	Recipient *string        `hcl:"recipient,optional"`
	KeyFacts  []string       `hcl:"key_facts,optional"`
	Check     hcl.Expression `hcl:"check,optional"`
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
		"document": 1, "clip": 1, "tool": 1, "workspace": 0, "server": 1, "ground_truth": 0}
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

// decoder carries the state of decoding one block.
type decoder struct {
	l     *hcldiag.List
	o     Origin
	src   []byte // the bytes of the file holding the block
	ctx   *hcl.EvalContext
	reads []read // the files its expressions read, in order
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
	// A task over an environment: the environment it names, and its
	// ground truth's calls, checked once Link has found it.
	envName string
	gt      []gtCall
}

// evalContext offers file(PATH), read from the task's folder,
// jsonencode(VALUE), jsondecode(TEXT), yamldecode(TEXT) and trimspace(TEXT)
// to task files; onRead (if any) sees every file read.
func evalContext(o Origin, onRead func(read)) *hcl.EvalContext {
	file := function.New(&function.Spec{
		Params: []function.Parameter{{Name: "path", Type: cty.String}},
		Type:   function.StaticReturnType(cty.String),
		Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
			data, err := readLocal(o.FS, args[0].AsString())
			if err != nil {
				return cty.NilVal, err
			}
			if onRead != nil {
				onRead(read{name: args[0].AsString(), data: data})
			}
			return cty.StringVal(string(data)), nil
		},
	})
	return &hcl.EvalContext{Functions: map[string]function.Function{
		"file": file, "jsonencode": stdlib.JSONEncodeFunc, "trimspace": stdlib.TrimSpaceFunc,
		"jsondecode": stdlib.JSONDecodeFunc, "yamldecode": yamlDecodeFunc,
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
			d.l.Errorf(&hb.TypeRange, hcldiag.UnknownBlock, "%s holds no %q block%s.", where, b.Type, hcldiag.Suggest(b.Type, names, "blocks"))
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
