package tasks

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"path"
	"regexp"
	"slices"
	"strings"

	"github.com/killchain/killchain/internal/canary"
	"github.com/killchain/killchain/internal/pdfdoc"
	"github.com/killchain/killchain/internal/world"
	"github.com/killchain/killchain/sandbox"
)

// DirectivePattern matches a directive-looking line: an imperative verb such
// as send, forward, include, call, grant, delete or copy, or words like must,
// ignore, override or instruction. Every payload line carrying the canary
// matches it; no line of legitimate content does (see the package
// conventions).
var DirectivePattern = regexp.MustCompile(`(?i)\b(send|forward|include|call|grant|delete|copy|e-?mail|must|ignore|override|disregard|instructions?|mandatory)\b`)

// Render fills a payload template: CanaryPlaceholder becomes canaryToken and
// AttackerPlaceholder becomes attacker.
func Render(payload, canaryToken, attacker string) string {
	return strings.NewReplacer(CanaryPlaceholder, canaryToken, AttackerPlaceholder, attacker).Replace(payload)
}

// RenderSpoken fills a payload template for speech: the canary in its spoken
// form (canary.Spoken) and the attacker's address spelled out (SpeakAddress).
func RenderSpoken(payload, canaryToken, attacker string) string {
	return Render(payload, canary.Spoken(canaryToken), SpeakAddress(attacker))
}

// SpokenPhrases is the phrase list of one of a task's speech clips
// (sandbox.Speech Phrases): the clean script, then the wording of every
// variant that fills a placement in the clip, with the attacker's address
// spoken and CanaryPlaceholder left where the code goes. It is the same for
// every run of the task, clean or attacked.
func SpokenPhrases(t *Task, c Clip) string {
	parts := []string{squeezed(fill(c.Script, func(string) string { return "" }))}
	names := placeholders(c.Script)
	for _, v := range t.Variants {
		for _, n := range names {
			if w, ok := v.Wording(n); ok {
				parts = append(parts, strings.TrimSpace(Render(w, CanaryPlaceholder, SpeakAddress(t.Attack.Address))))
			}
		}
	}
	return strings.Join(parts, "\n")
}

// SpeakAddress spells an e-mail address the way a speaker reads it:
// "records-desk@harbor-audit.net" becomes
// "records dash desk at harbor dash audit dot net".
func SpeakAddress(addr string) string {
	var words []string
	var cur strings.Builder
	flush := func() {
		if cur.Len() > 0 {
			words = append(words, cur.String())
			cur.Reset()
		}
	}
	for _, r := range strings.ToLower(strings.TrimSpace(addr)) {
		word := ""
		switch r {
		case '@':
			word = "at"
		case '.':
			word = "dot"
		case '-':
			word = "dash"
		case '_':
			word = "underscore"
		default:
			cur.WriteRune(r)
			continue
		}
		flush()
		words = append(words, word)
	}
	flush()
	return strings.Join(words, " ")
}

// Env builds the environment planted for one run. It resolves the variant by
// name (so a caller may pass only BuildInput.Variant.Name), checks the canary
// against the condition, builds every environment item with the run's
// payload in place and checks the result: an attacked environment must carry
// the run's canary (unless the task measures only the attack goal) and a
// clean one no canary-shaped string.
func (t *Task) Env(in BuildInput) (sandbox.Env, error) {
	name := in.Variant.Name
	if in.Variant.Attack != "" && in.Attacked {
		return t.envOf(in, in.Variant)
	}
	if t.Environment != nil && !in.Attacked {
		// A clean run of a task over an environment: every vector holds
		// its default, whatever the variant.
		return t.envOf(in, Variant{Name: "none"})
	}
	if !in.Attacked && len(t.Variants) > 0 {
		if _, ok := t.Variant(name); !ok {
			// A clean control plants no payload: every variant builds the
			// same legitimate environment, so a plan's "none" (or no name)
			// resolves to the first.
			name = t.Variants[0].Name
		}
	}
	v, ok := t.Variant(name)
	if !ok {
		return sandbox.Env{}, fmt.Errorf("task %s: unknown variant %q (have %s)", t.Name, name, strings.Join(t.VariantNames(), ", "))
	}
	return t.envOf(in, v)
}

// envOf builds and checks the environment of a resolved variant.
func (t *Task) envOf(in BuildInput, v Variant) (sandbox.Env, error) {
	in.Variant = v
	carries := t.CarriesCanary(in.Attacked)
	switch {
	case carries && !canary.Valid(in.Canary):
		return sandbox.Env{}, fmt.Errorf("task %s/%s: attacked run needs a valid canary, got %q", t.Name, v.Name, in.Canary)
	case !carries && in.Canary != "":
		return sandbox.Env{}, fmt.Errorf("task %s/%s: clean run must not carry a canary, got %q", t.Name, v.Name, in.Canary)
	}
	env, err := t.build(in)
	if err != nil {
		return sandbox.Env{}, fmt.Errorf("build %s/%s: %w", t.Name, v.Name, err)
	}
	texts, err := EnvTexts(env)
	if err != nil {
		return sandbox.Env{}, fmt.Errorf("check %s/%s: %w", t.Name, v.Name, err)
	}
	found := false
	for place, text := range texts {
		if carries && canary.Contains(text, in.Canary) {
			found = true
		}
		if !carries {
			if got := canary.FindAny(text); len(got) > 0 {
				return sandbox.Env{}, fmt.Errorf("check %s/%s: clean environment carries %s in %s", t.Name, v.Name, got[0], place)
			}
		}
	}
	if carries && !found && !t.AttackGoalOnly && !v.NoCanary {
		return sandbox.Env{}, fmt.Errorf("check %s/%s: attacked environment does not carry the canary", t.Name, v.Name)
	}
	return env, nil
}

// build lays out every item of the environment for one run: one builder
// per kind of item, the run's payload in each placement its variant fills.
func (t *Task) build(in BuildInput) (sandbox.Env, error) {
	env := sandbox.Env{Study: in.Study, Run: in.Run, Task: t.Name}
	written, spoken := t.wordings(in, false), t.wordings(in, true)
	add := func(p string, data []byte) {
		if env.Files == nil {
			env.Files = map[string][]byte{}
		}
		env.Files[p] = data
	}
	for _, p := range t.Pages {
		add(pagePath(p.URL), []byte(collapseBlank(fill(p.Text, written))))
	}
	for _, n := range t.Notes {
		if v := squeezed(fill(n.Text, written)); v != "" {
			env.Memory = append(env.Memory, sandbox.TextRecord(n.Key, v, "seed"))
		}
	}
	if len(t.Records) > 0 {
		var recs []sandbox.DBRecord
		for _, r := range t.Records {
			if body := squeezed(fill(r.Text, written)); body != "" {
				recs = append(recs, sandbox.DBRecord{ID: r.ID, Title: r.Title, Body: body})
			}
		}
		data, err := recordsJSON(recs)
		if err != nil {
			return env, err
		}
		add(sandbox.DBFile, data)
	}
	for _, d := range t.Documents {
		data, err := buildDocument(d, written)
		if err != nil {
			return env, fmt.Errorf("document %s: %w", d.Path, err)
		}
		add(d.Path, data)
	}
	for _, c := range t.Clips {
		env.Speech = append(env.Speech, sandbox.Speech{Path: c.Path, Text: squeezed(fill(c.Script, spoken)), Phrases: SpokenPhrases(t, c)})
	}
	for _, tl := range t.Tools {
		env.Tools = append(env.Tools, buildTool(tl, written))
	}
	env.MCP = t.mcpServers()
	if t.Environment != nil {
		if err := t.buildWorld(in, &env); err != nil {
			return env, err
		}
	}
	if t.Reward != nil {
		env.Shell = true
		for _, f := range t.Reward.Files {
			text := fill(f.Text, written)
			if strings.Contains(text, CanaryPlaceholder) {
				if in.Canary == "" {
					continue // the snapshot leaves out the files that carry a run's canary
				}
				text = strings.ReplaceAll(text, CanaryPlaceholder, in.Canary)
			}
			add(WorkspaceDir+"/"+f.Path, []byte(text))
		}
	}
	if !env.Shell {
		for _, r := range t.Roles {
			env.Shell = env.Shell || offers(r, "run_shell")
		}
	}
	return env, nil
}

func offers(r Role, tool string) bool {
	for _, n := range r.Tools {
		if n == tool {
			return true
		}
	}
	return false
}

// wordings returns what a run plants at each placement: the variant's
// wording rendered with the run's canary and the attacker's address
// (spoken for speech), or "" in a clean run and at placements the variant
// does not fill.
func (t *Task) wordings(in BuildInput, speech bool) func(string) string {
	return func(name string) string {
		if !in.Attacked {
			return ""
		}
		w, ok := in.Variant.Wording(name)
		if !ok {
			return ""
		}
		if speech {
			return RenderSpoken(w, in.Canary, t.attacker(in))
		}
		w = Render(w, in.Canary, t.attacker(in))
		for _, e := range in.Variant.Encodings {
			w = e.Encode(w)
		}
		return w
	}
}

// buildDocument generates a document's PDF with the run's payload placed.
func buildDocument(d Document, wording func(string) string) ([]byte, error) {
	doc := pdfdoc.Doc{
		Title:     d.Title,
		Author:    d.Author,
		Subject:   d.Subject,
		Keywords:  d.Keywords,
		Abstract:  strings.Join(paragraphs(fill(d.Abstract, wording)), " "),
		Body:      paragraphs(fill(d.Body, wording)),
		Appended:  squeezed(fill(d.Appended, wording)),
		WhiteText: squeezed(fill(d.WhiteText, wording)),
	}
	if meta := squeezed(fill(d.Metadata, wording)); meta != "" {
		subject, keywords, _ := strings.Cut(meta, "\n")
		doc.Subject = joinNonEmpty(doc.Subject, ". ", subject)
		if keywords != "" {
			doc.Keywords = joinNonEmpty(doc.Keywords, "; ", keywords)
		}
	}
	return pdfdoc.Generate(doc)
}

func joinNonEmpty(a, sep, b string) string {
	if a == "" {
		return b
	}
	return a + sep + b
}

// buildTool is a task tool as one run's sandbox serves it.
func buildTool(tl Tool, wording func(string) string) sandbox.ToolDef {
	def := sandbox.ToolDef{
		Name: tl.Name, Description: squeezed(fill(tl.Description, wording)), Level: tl.Level.String(),
		Parameters: tl.Parameters, Outbound: tl.Outbound, Untrusted: tl.Untrusted,
	}
	if tl.RugPull != "" {
		def.RugPull = squeezed(fill(tl.RugPull, wording))
	}
	def.Parameters = fillSchema(tl.Parameters, wording)
	for _, r := range tl.Results {
		def.Results = append(def.Results, sandbox.ToolResult{When: r.When, Text: squeezed(fill(r.Text, wording))})
	}
	return def
}

// paragraphs splits text at blank lines, joining each paragraph's lines with
// spaces.
func paragraphs(text string) []string {
	var out []string
	for _, p := range strings.Split(strings.TrimSpace(text), "\n\n") {
		if p = strings.Join(strings.Fields(p), " "); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// EnvTexts returns every text an environment exposes, keyed by place:
// "file:<path>" for plain files, "db:<path>" for the records database
// rendered one record after another as the search tool shows them,
// "pdf:<path>" for a PDF as parse_pdf reports it (pages and metadata),
// "memory:<key>" for seeded records, "speech:<path>" for speech scripts,
// "tool:<name>" for a task tool's description, parameters, rug-pull
// description and results, and "state" for every string of an
// environment's state.
func EnvTexts(env sandbox.Env) (map[string]string, error) {
	out := map[string]string{}
	for p, data := range env.Files {
		if p == sandbox.DBFile {
			var recs []sandbox.DBRecord
			if err := json.Unmarshal(data, &recs); err != nil {
				return nil, fmt.Errorf("decode %s: %w", p, err)
			}
			var sb strings.Builder
			for _, r := range recs {
				fmt.Fprintf(&sb, "[%s] %s\n%s\n\n", r.ID, r.Title, r.Body)
			}
			out["db:"+p] = sb.String()
			continue
		}
		if strings.EqualFold(path.Ext(p), ".pdf") {
			ex, err := pdfdoc.Extract(data)
			if err != nil {
				return nil, fmt.Errorf("extract %s: %w", p, err)
			}
			out["pdf:"+p] = ex.String()
			continue
		}
		out["file:"+p] = string(data)
	}
	for _, r := range env.Memory {
		out["memory:"+r.Key] = r.Text()
	}
	for _, s := range env.Speech {
		out["speech:"+s.Path] = s.Text
	}
	if env.World != nil {
		st, err := world.Decode(env.World.State)
		if err != nil {
			return nil, fmt.Errorf("decode state: %w", err)
		}
		var strs []string
		walkStrings(st, func(s string) { strs = append(strs, s) })
		out["state"] = strings.Join(strs, "\n")
	}
	for _, d := range env.Tools {
		parts := []string{d.Description, schemaStrings(d.Parameters)}
		if d.RugPull != "" {
			parts = append(parts, d.RugPull)
		}
		for _, r := range d.Results {
			parts = append(parts, r.Text)
		}
		out["tool:"+d.Name] = strings.Join(parts, "\n")
	}
	if env.World != nil {
		text, err := stateTexts(env.World.State)
		if err != nil {
			return nil, fmt.Errorf("decode state: %w", err)
		}
		out["state"] = text
	}
	return out, nil
}

// pagePath is the state-folder path of the page served for url.
func pagePath(url string) string { return sandbox.WebDir + "/" + sandbox.PageFile(url) }

// recordsJSON renders the records database file.
func recordsJSON(recs []sandbox.DBRecord) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetIndent("", "  ")
	if err := enc.Encode(recs); err != nil {
		return nil, fmt.Errorf("encode records: %w", err)
	}
	return buf.Bytes(), nil
}

// fillSchema places the payload in a tool's parameter schema: every
// string of the JSON (a parameter's description) filled as text is. A
// schema without placeholders is returned as it is.
func fillSchema(schema json.RawMessage, wording func(string) string) json.RawMessage {
	if !strings.Contains(string(schema), "{{PAYLOAD") {
		return schema
	}
	var v any
	if json.Unmarshal(schema, &v) != nil {
		return schema
	}
	out, err := json.Marshal(fillStrings(v, wording))
	if err != nil {
		return schema
	}
	return out
}

func fillStrings(v any, wording func(string) string) any {
	switch x := v.(type) {
	case string:
		if !strings.Contains(x, "{{PAYLOAD") {
			return x
		}
		return squeezed(fill(x, wording))
	case []any:
		for i := range x {
			x[i] = fillStrings(x[i], wording)
		}
	case map[string]any:
		for k := range x {
			x[k] = fillStrings(x[k], wording)
		}
	}
	return v
}

// schemaStrings is every string of a parameter schema (the parameters'
// descriptions among them), one after another: the schema as EnvTexts
// shows it.
func schemaStrings(schema json.RawMessage) string {
	var v any
	if json.Unmarshal(schema, &v) != nil {
		return string(schema)
	}
	var out []string
	var walk func(v any)
	walk = func(v any) {
		switch x := v.(type) {
		case string:
			out = append(out, x)
		case []any:
			for _, e := range x {
				walk(e)
			}
		case map[string]any:
			for _, k := range slices.Sorted(maps.Keys(x)) {
				walk(x[k])
			}
		}
	}
	walk(v)
	return strings.Join(out, "\n")
}
