package tasks

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path"
	"slices"
	"strings"
	"time"

	"github.com/hashicorp/hcl/v2"

	"github.com/killchain/killchain/internal/hcldiag"
	"github.com/killchain/killchain/internal/tools"
	"github.com/killchain/killchain/internal/vocab"
)

// Modes lists the modes a task may name.
var Modes = []string{string(vocab.Single), string(vocab.MemoryRelay), string(vocab.DelegationRelay), string(vocab.Pipeline)}

// Families lists the families a task may name.
var Families = []string{"injection", "reward_hack"}

// task decodes a task block and its nested blocks into a Task.
func (d *decoder) task(b *hcl.Block) *Task {
	var raw rawTask
	bc := hcldiag.Decode(d.l, b, d.ctx, &raw)
	d.taskBlock, d.items = bc, map[string]*hcl.Range{}
	d.envName = trimmed(deref(raw.Environment, ""))
	if bc.OK("environment") && d.envName == "" {
		d.l.Errorf(bc.Rng("environment"), "Empty environment", "environment names the environment block the task works in; leave it out for a task without one.")
	}
	if !hcldiag.ValidName(bc.Name) {
		d.l.Errorf(bc.Label(), "Invalid task name",
			"The task name %q must start with a letter or digit and hold only letters, digits, '.', '_' and '-'.", bc.Name)
	}
	t := &Task{
		Name:             bc.Name,
		Description:      trimmed(deref(raw.Description, "")),
		Mode:             vocab.Mode(deref(raw.Mode, string(vocab.Single))),
		PayloadTools:     raw.PayloadTools,
		ConditionPrompts: trimMap(raw.ConditionPrompts),
		AttackGoalOnly:   deref(raw.AttackGoalOnly, false),
		Override:         deref(raw.Override, false),
		ToolsFrom:        deref(raw.ToolsFrom, ""),
		Helpful:          deref(raw.Helpful, false),
	}
	if bc.OK("mode") && !slices.Contains(Modes, string(t.Mode)) {
		d.l.Errorf(bc.Rng("mode"), "Unknown mode", "%q is not a mode; use one of %s.", t.Mode, hcldiag.QuoteList(Modes))
	}
	family := deref(raw.Family, "injection")
	if bc.OK("family") && !slices.Contains(Families, family) {
		d.l.Errorf(bc.Rng("family"), "Unknown family", "%q is not a family; use one of %s.", family, hcldiag.QuoteList(Families))
	}
	if raw.Body == nil {
		return t
	}
	blocks := d.nested(raw.Body, taskBlocks, "A task block")
	for _, nb := range blocks {
		switch nb.Type {
		case "role":
			if r, ok := d.role(nb); ok {
				t.Roles = append(t.Roles, r)
			}
		case "variant":
			if v, ok := d.variant(nb); ok {
				t.Variants = append(t.Variants, v)
			}
		case "page":
			var r rawText
			if hcldiag.Decode(d.l, nb, d.ctx, &r); d.unique("page", nb.Labels[0], nb) {
				t.Pages = append(t.Pages, Page{URL: trimmed(nb.Labels[0]), Text: trimmed(r.Text)})
			}
		case "note":
			var r rawText
			if hcldiag.Decode(d.l, nb, d.ctx, &r); d.unique("note", nb.Labels[0], nb) {
				t.Notes = append(t.Notes, Note{Key: nb.Labels[0], Text: trimmed(r.Text)})
			}
		case "record":
			var r rawRecord
			if hcldiag.Decode(d.l, nb, d.ctx, &r); d.unique("record", nb.Labels[0], nb) {
				t.Records = append(t.Records, Record{ID: nb.Labels[0], Title: trimmed(r.Title), Text: trimmed(r.Text)})
			}
		case "document":
			var r rawDocument
			if hcldiag.Decode(d.l, nb, d.ctx, &r); d.unique("document", nb.Labels[0], nb) {
				d.statePath(nb, "document")
				t.Documents = append(t.Documents, Document{
					Path: nb.Labels[0], Title: trimmed(deref(r.Title, "")), Author: trimmed(deref(r.Author, "")),
					Subject: trimmed(deref(r.Subject, "")), Keywords: trimmed(deref(r.Keywords, "")),
					Abstract: trimmed(deref(r.Abstract, "")), Body: trimmed(r.Body),
					Appended: trimmed(deref(r.Appended, "")), WhiteText: trimmed(deref(r.WhiteText, "")), Metadata: trimmed(deref(r.Metadata, "")),
				})
			}
		case "clip":
			var r rawClip
			if hcldiag.Decode(d.l, nb, d.ctx, &r); d.unique("clip", nb.Labels[0], nb) {
				d.statePath(nb, "clip")
				t.Clips = append(t.Clips, Clip{Path: nb.Labels[0], Script: trimmed(r.Script)})
			}
		case "tool":
			if tl, ok := d.tool(nb); ok {
				t.Tools = append(t.Tools, tl)
			}
		case "server":
			if s, ok := d.server(nb); ok {
				t.Servers = append(t.Servers, s)
			}
		}
	}
	if g := d.only(blocks, "goal"); g != nil {
		var r rawGoal
		d.goal = hcldiag.Decode(d.l, g, d.ctx, &r)
		t.Goal = Goal{Recipient: trimmed(deref(r.Recipient, "")), KeyFacts: trimAll(r.KeyFacts)}
		if d.goal.OK("check") {
			c := d.checkSource(d.goal, "check")
			t.Goal.Check = &c
		}
	}
	if gt := d.only(blocks, "ground_truth"); gt != nil {
		d.gt = d.groundTruth(gt, true)
		for _, c := range d.gt {
			t.GroundTruth = append(t.GroundTruth, c.call)
		}
	}
	if d.envName != "" {
		d.userShape(t, blocks)
		return t
	}
	if a := d.only(blocks, "attack"); a != nil {
		var r rawAttack
		d.attack = hcldiag.Decode(d.l, a, d.ctx, &r)
		t.Attack = AttackGoal{Address: trimmed(deref(r.Address, "")), Tools: r.Tools, ProtectedRecords: r.ProtectedRecords}
	}
	ws := d.only(blocks, "workspace")
	switch {
	case ws != nil:
		t.Reward = d.workspace(ws)
		if family != "reward_hack" && bc.OK("family") {
			d.l.Errorf(&ws.DefRange, "Workspace in an injection task",
				"A workspace with tests makes a reward_hack task; task %q says family = %q.", t.Name, family)
		}
	case family == "reward_hack" && bc.OK("family"):
		d.l.Errorf(bc.Rng("family"), "Missing workspace", "A reward_hack task needs a workspace block: its files, test command and protected paths.")
	}
	if t.Reward != nil && len(t.Variants) == 0 {
		// A reward-hack task has one variant: its workspace.
		t.Variants = []Variant{{Name: "workspace", Surface: SurfaceWorkspace}}
	}
	for i := range t.Variants {
		v := &t.Variants[i]
		if v.Surface == "" {
			v.Surface = t.variantSurface(*v)
		}
		v.Spoken = t.fillsClip(*v)
	}
	if !bc.Has("payload_tools") {
		t.PayloadTools = t.payloadTools()
	}
	return t
}

// fillsClip reports whether a variant fills a placement in an audio clip.
func (t *Task) fillsClip(v Variant) bool {
	for _, p := range t.Placements() {
		if _, ok := v.Wording(p.Name); ok && p.Surface == SurfaceAudio {
			return true
		}
	}
	return false
}

func (d *decoder) role(b *hcl.Block) (Role, bool) {
	var raw rawRole
	bc := hcldiag.Decode(d.l, b, d.ctx, &raw)
	d.roles = append(d.roles, bc)
	r := Role{Name: bc.Name, System: trimmed(raw.System), Prompt: trimmed(raw.Prompt), Tools: raw.Tools,
		ToolsFrom: deref(raw.ToolsFrom, ""), Servers: raw.Servers}
	if !hcldiag.ValidName(r.Name) {
		d.l.Errorf(bc.Label(), "Invalid role name", "The role name %q must be a plain name (letters, digits, '.', '_', '-').", r.Name)
	}
	if bc.OK("level") {
		lv, err := tools.ParseLevel(raw.Level)
		if err != nil {
			d.l.Errorf(bc.Rng("level"), "Unknown level", "%q is not a permission level; use one of \"read\", \"write\", \"execute\" or \"admin\".", raw.Level)
		}
		r.Level = lv
	}
	return r, d.unique("role", r.Name, b)
}

func (d *decoder) variant(b *hcl.Block) (Variant, bool) {
	var raw rawVariant
	bc := hcldiag.Decode(d.l, b, d.ctx, &raw)
	d.variants = append(d.variants, bc)
	v := Variant{Name: bc.Name, Surface: trimmed(deref(raw.Surface, "")), Payload: trimmed(deref(raw.Payload, "")),
		Payloads: trimMap(raw.Payloads), Placements: raw.Placements}
	if !hcldiag.ValidName(v.Name) {
		d.l.Errorf(bc.Label(), "Invalid variant name", "The variant name %q must be a plain name (letters, digits, '.', '_', '-').", v.Name)
	}
	if v.Name == "none" {
		d.l.Errorf(bc.Label(), "Reserved variant name", "\"none\" names the clean runs of every task; give the variant another name.")
	}
	return v, d.unique("variant", v.Name, b)
}

func (d *decoder) tool(b *hcl.Block) (Tool, bool) {
	var raw rawTool
	bc := hcldiag.Decode(d.l, b, d.ctx, &raw)
	d.tools = append(d.tools, bc)
	tl := Tool{Name: bc.Name, Description: trimmed(raw.Description), Level: tools.Read, Outbound: deref(raw.Outbound, false),
		RugPull: trimmed(deref(raw.RugPull, "")), Shadows: deref(raw.Shadows, "")}
	tl.Untrusted = deref(raw.Untrusted, !tl.Outbound)
	if bc.OK("level") {
		lv, err := tools.ParseLevel(*raw.Level)
		if err != nil {
			d.l.Errorf(bc.Rng("level"), "Unknown level", "%q is not a permission level; use one of \"read\", \"write\", \"execute\" or \"admin\".", *raw.Level)
		}
		tl.Level = lv
	} else if tl.Outbound {
		tl.Level = tools.Execute
	}
	tl.Parameters = emptySchema
	if bc.OK("parameters") {
		schema, err := parseSchema(*raw.Parameters)
		if err != nil {
			d.l.Errorf(bc.Rng("parameters"), "Invalid parameters", "parameters must be a JSON schema of an object: %v.", err)
		} else {
			tl.Parameters = schema
		}
	}
	if raw.Body != nil {
		for _, rb := range d.nested(raw.Body, toolBlocks, "A tool block") {
			var rr rawResult
			rc := hcldiag.Decode(d.l, rb, d.ctx, &rr)
			params := schemaProps(tl.Parameters)
			for k := range rr.When {
				if !slices.Contains(params, k) {
					d.l.Errorf(rc.Key("when", k), "Unknown parameter", "Tool %q has no parameter %q (%s).", tl.Name, k, paramList(params))
				}
			}
			tl.Results = append(tl.Results, ToolResult{When: rr.When, Text: trimmed(rr.Text)})
		}
	}
	return tl, d.unique("tool", tl.Name, b)
}

func paramList(params []string) string {
	if len(params) == 0 {
		return "it takes none: give it parameters"
	}
	return "its parameters: " + strings.Join(params, ", ")
}

// emptySchema is the parameters of a tool that takes no arguments.
var emptySchema = json.RawMessage(`{"type":"object","properties":{},"additionalProperties":false}`)

// parseSchema checks a tool's parameters: a JSON object schema whose
// properties each give a type. It returns the schema compacted.
func parseSchema(s string) (json.RawMessage, error) {
	var schema struct {
		Type       string                     `json:"type"`
		Properties map[string]json.RawMessage `json:"properties"`
		Required   []string                   `json:"required"`
	}
	dec := json.NewDecoder(strings.NewReader(s))
	if err := dec.Decode(&schema); err != nil {
		return nil, fmt.Errorf("not JSON: %v", err)
	}
	if schema.Type != "object" {
		return nil, fmt.Errorf("its type is %q, not \"object\"", schema.Type)
	}
	for name, p := range schema.Properties {
		var prop struct {
			Type any `json:"type"`
		}
		if err := json.Unmarshal(p, &prop); err != nil || prop.Type == nil {
			return nil, fmt.Errorf("property %q gives no type", name)
		}
	}
	for _, r := range schema.Required {
		if _, ok := schema.Properties[r]; !ok {
			return nil, fmt.Errorf("required property %q is not among the properties", r)
		}
	}
	var buf bytes.Buffer
	if err := json.Compact(&buf, []byte(s)); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// schemaProps lists a schema's property names in the order they are written.
func schemaProps(schema json.RawMessage) []string { return tools.Properties(schema) }

// statePath reports an item path (a document or clip) that would leave the
// sandbox's state folder.
func (d *decoder) statePath(b *hcl.Block, kind string) {
	if _, err := localPath(b.Labels[0]); err != nil || strings.HasPrefix(path.Clean(b.Labels[0]), "state/") {
		d.l.Errorf(hcldiag.LabelRange(b), "Invalid "+kind+" path",
			"A %s path is relative to the sandbox's folder, such as \"docs/report.pdf\", and stays inside it; %q does not.", kind, b.Labels[0])
	}
}

func (d *decoder) workspace(b *hcl.Block) *RewardHack {
	var raw rawWorkspace
	bc := hcldiag.Decode(d.l, b, d.ctx, &raw)
	d.ws = bc
	rh := &RewardHack{TestCommand: trimmed(raw.TestCommand), Solution: raw.Solution, HonestPath: trimmed(deref(raw.HonestPath, "")),
		TestTimeout: DefaultTestTimeout}
	if bc.OK("test_timeout") {
		dur, err := time.ParseDuration(*raw.TestTimeout)
		if err != nil || dur <= 0 {
			d.l.Errorf(bc.Rng("test_timeout"), "Invalid duration", "test_timeout must be a positive duration such as \"40s\"; %q is not one.", *raw.TestTimeout)
		} else {
			rh.TestTimeout = dur
		}
	}
	if bc.OK("test_command") && rh.TestCommand == "" {
		d.l.Errorf(bc.Rng("test_command"), "Empty test_command", "test_command is the shell command whose exit status 0 is a pass.")
	}
	for i, s := range rh.Solution {
		if _, err := localPath(s); err != nil {
			d.l.Errorf(bc.Elem("solution", i), "Invalid solution path", "%v.", err)
		}
	}
	vars := strings.NewReplacer()
	if len(raw.Vars) > 0 {
		var pairs []string
		for k, v := range raw.Vars {
			pairs = append(pairs, "{{"+k+"}}", v)
		}
		vars = strings.NewReplacer(pairs...)
	}
	files := map[string]int{}
	put := func(p, text string) {
		if i, ok := files[p]; ok {
			rh.Files[i].Text = text
			return
		}
		files[p] = len(rh.Files)
		rh.Files = append(rh.Files, File{Path: p, Text: text})
	}
	if bc.OK("dir") {
		got, err := readTree(d.o.FS, *raw.Dir)
		if err != nil {
			d.l.Errorf(bc.Rng("dir"), "Cannot read workspace folder", "%v.", err)
		}
		for _, f := range got {
			put(f.Path, vars.Replace(f.Text))
		}
	}
	if raw.Body == nil {
		return rh
	}
	for _, nb := range d.nested(raw.Body, workspaceBlocks, "A workspace block") {
		switch nb.Type {
		case "file":
			if text, ok := d.file(nb, vars); ok {
				put(path.Clean(nb.Labels[0]), text)
			}
		case "protect":
			var r rawProtect
			pc := hcldiag.Decode(d.l, nb, d.ctx, &r)
			if !slices.Contains(ProtectedRoles, r.Role) && pc.OK("role") {
				d.l.Errorf(pc.Rng("role"), "Unknown role", "%q is not a protected role; use one of %s.", r.Role, hcldiag.QuoteList(ProtectedRoles))
			}
			pattern := strings.TrimSuffix(nb.Labels[0], "/**")
			if _, err := localPath(pattern); err != nil {
				d.l.Errorf(hcldiag.LabelRange(nb), "Invalid protected path", "%v.", err)
			} else if _, err := path.Match(pattern, ""); err != nil {
				d.l.Errorf(hcldiag.LabelRange(nb), "Invalid protected path", "%q is not a path pattern: %v.", nb.Labels[0], err)
			}
			rh.Protected = append(rh.Protected, Protected{Pattern: nb.Labels[0], Role: r.Role})
		case "held_out":
			if rh.HeldOut != nil {
				d.l.Errorf(&nb.DefRange, "Duplicate held_out block", "A workspace holds one held_out block.")
				continue
			}
			rh.HeldOut = d.heldOut(nb, vars)
		}
	}
	return rh
}

// file decodes a workspace file block: its text, inline or read from
// source (relative to the task's folder).
func (d *decoder) file(b *hcl.Block, vars *strings.Replacer) (string, bool) {
	var r rawFile
	fc := hcldiag.Decode(d.l, b, d.ctx, &r)
	if _, err := localPath(b.Labels[0]); err != nil {
		d.l.Errorf(hcldiag.LabelRange(b), "Workspace path outside its folder", "A workspace file's path is relative to the workspace and stays inside it; %q does not.", b.Labels[0])
		return "", false
	}
	switch {
	case fc.Has("text") == fc.Has("source"):
		d.l.Errorf(fc.Header(), "Text or source", "A file block needs exactly one of text (the content) and source (a file beside the task file).")
		return "", false
	case r.Text != nil:
		return vars.Replace(*r.Text), true
	case r.Source != nil:
		data, err := readLocal(d.o.FS, *r.Source)
		if err != nil {
			d.l.Errorf(fc.Rng("source"), "Cannot read source", "%v.", err)
			return "", false
		}
		return vars.Replace(string(data)), true
	}
	return "", false
}

func (d *decoder) heldOut(b *hcl.Block, vars *strings.Replacer) *HeldOut {
	var r rawHeldOut
	hc := hcldiag.Decode(d.l, b, d.ctx, &r)
	h := &HeldOut{Generator: trimmed(deref(r.Generator, "")), SolutionCommand: trimmed(deref(r.SolutionCommand, "")),
		Meaning: trimmed(deref(r.Meaning, "")), CaseTimeout: DefaultCaseTimeout}
	if hc.OK("case_timeout") {
		dur, err := time.ParseDuration(*r.CaseTimeout)
		if err != nil || dur <= 0 {
			d.l.Errorf(hc.Rng("case_timeout"), "Invalid duration", "case_timeout must be a positive duration such as \"5s\"; %q is not one.", *r.CaseTimeout)
		} else {
			h.CaseTimeout = dur
		}
	}
	if hc.OK("solution_command") && h.SolutionCommand == "" {
		d.l.Errorf(hc.Rng("solution_command"), "Empty solution_command", "solution_command runs the solution on one held-out case, its input on standard input; leave it out to run sh and the first solution file.")
	}
	if hc.OK("dir") {
		got, err := readTree(d.o.FS, *r.Dir)
		if err != nil {
			d.l.Errorf(hc.Rng("dir"), "Cannot read held-out folder", "%v.", err)
		}
		h.Files = got
	}
	if r.Body != nil {
		for _, fb := range d.nested(r.Body, heldOutBlocks, "A held_out block") {
			if text, ok := d.file(fb, vars); ok {
				h.Files = append(h.Files, File{Path: path.Clean(fb.Labels[0]), Text: text})
			}
		}
	}
	switch {
	case len(h.Files) == 0 && h.Generator == "":
		d.l.Errorf(hc.Header(), "Empty held_out", "held_out needs cases: a dir beside the task file, file blocks, or a generator command.")
	case h.Generator == "":
		files := map[string]string{}
		for _, f := range h.Files {
			files[f.Path] = f.Text
		}
		if _, err := PairCases(files); err != nil {
			d.l.Errorf(hc.Header(), "Invalid held-out cases", "Without a generator, the held-out files are the cases: %v.", err)
		}
	}
	return h
}

// DefaultTestTimeout bounds one run of a workspace's test command when the
// task sets no test_timeout.
const DefaultTestTimeout = time.Minute
