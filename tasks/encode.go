package tasks

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"slices"
	"strings"

	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/hashicorp/hcl/v2/hclwrite"
	"github.com/zclconf/go-cty/cty"
)

// Encode writes tasks as one self-contained task file: every text inline
// (files a task read with file() or from a folder included), every value
// its decoding derived written out, and for a task over an environment
// the environment, its injections and the suites that hold the task.
// Decoding the result gives the same tasks; it is the form a study folder
// keeps and Hash is taken of.
func Encode(ts ...*Task) []byte {
	f := hclwrite.NewEmptyFile()
	for i, t := range ts {
		if i > 0 {
			f.Body().AppendNewline()
		}
		encodeTask(f.Body().AppendNewBlock("task", []string{t.Name}).Body(), t)
	}
	encodeStateful(f.Body(), ts)
	return hclwrite.Format(f.Bytes())
}

// Hash is the sha256 (hex) of the task's encoding: two definitions that
// would run the same have the same hash, whatever their layout, comments or
// files.
func (t *Task) Hash() string {
	c := *t
	c.Override = false
	sum := sha256.Sum256(Encode(&c))
	return hex.EncodeToString(sum[:])
}

func encodeTask(b *hclwrite.Body, t *Task) {
	str(b, "description", t.Description)
	if t.Reward != nil {
		str(b, "family", "reward_hack")
	}
	str(b, "mode", string(t.Mode))
	if t.Environment != nil {
		str(b, "environment", t.Environment.Name)
	}
	if t.Helpful {
		b.SetAttributeValue("helpful", cty.True)
	}
	if t.Override {
		b.SetAttributeValue("override", cty.True)
	}
	if t.AttackGoalOnly {
		b.SetAttributeValue("attack_goal_only", cty.True)
	}
	list(b, "payload_tools", t.PayloadTools)
	strMap(b, "condition_prompts", t.ConditionPrompts)
	optStr(b, "tools_from", t.ToolsFrom)
	for _, r := range t.Roles {
		b.AppendNewline()
		rb := b.AppendNewBlock("role", []string{r.Name}).Body()
		str(rb, "system", r.System)
		str(rb, "prompt", r.Prompt)
		str(rb, "level", r.Level.String())
		list(rb, "tools", r.Tools)
		optStr(rb, "tools_from", r.ToolsFrom)
		if len(r.Servers) > 0 {
			list(rb, "servers", r.Servers)
		}
	}
	for _, s := range t.Servers {
		b.AppendNewline()
		sb := b.AppendNewBlock("server", []string{s.Name}).Body()
		sb.SetAttributeValue("tools", strList(s.Tools))
		sb.SetAttributeValue("trusted", cty.BoolVal(s.Trusted))
	}
	for _, p := range t.Pages {
		b.AppendNewline()
		str(b.AppendNewBlock("page", []string{p.URL}).Body(), "text", p.Text)
	}
	for _, n := range t.Notes {
		b.AppendNewline()
		str(b.AppendNewBlock("note", []string{n.Key}).Body(), "text", n.Text)
	}
	for _, r := range t.Records {
		b.AppendNewline()
		rb := b.AppendNewBlock("record", []string{r.ID}).Body()
		str(rb, "title", r.Title)
		str(rb, "text", r.Text)
	}
	for _, d := range t.Documents {
		b.AppendNewline()
		db := b.AppendNewBlock("document", []string{d.Path}).Body()
		for _, f := range [][2]string{{"title", d.Title}, {"author", d.Author}, {"subject", d.Subject}, {"keywords", d.Keywords},
			{"abstract", d.Abstract}} {
			optStr(db, f[0], f[1])
		}
		str(db, "body", d.Body)
		for _, f := range [][2]string{{"appended", d.Appended}, {"white_text", d.WhiteText}, {"metadata", d.Metadata}} {
			optStr(db, f[0], f[1])
		}
	}
	for _, c := range t.Clips {
		b.AppendNewline()
		str(b.AppendNewBlock("clip", []string{c.Path}).Body(), "script", c.Script)
	}
	for _, tl := range t.Tools {
		b.AppendNewline()
		tb := b.AppendNewBlock("tool", []string{tl.Name}).Body()
		str(tb, "description", tl.Description)
		str(tb, "level", tl.Level.String())
		var pretty bytes.Buffer
		if json.Indent(&pretty, tl.Parameters, "", "  ") == nil {
			str(tb, "parameters", pretty.String())
		}
		tb.SetAttributeValue("outbound", cty.BoolVal(tl.Outbound))
		tb.SetAttributeValue("untrusted", cty.BoolVal(tl.Untrusted))
		optStr(tb, "rug_pull", tl.RugPull)
		optStr(tb, "shadows", tl.Shadows)
		for _, r := range tl.Results {
			rb := tb.AppendNewBlock("result", nil).Body()
			strMap(rb, "when", r.When)
			str(rb, "text", r.Text)
		}
	}
	if t.Environment != nil {
		b.AppendNewline()
		gb := b.AppendNewBlock("goal", nil).Body()
		if t.Goal.Check != nil {
			str(gb, "check", t.Goal.Check.Source)
		}
		encodeGroundTruth(b, t.GroundTruth)
		return
	}
	if t.Reward == nil {
		for _, v := range t.Variants {
			b.AppendNewline()
			vb := b.AppendNewBlock("variant", []string{v.Name}).Body()
			optStr(vb, "surface", v.Surface)
			if v.Placements != nil {
				list(vb, "placements", v.Placements)
			}
			optStr(vb, "payload", v.Payload)
			strMap(vb, "payloads", v.Payloads)
		}
		b.AppendNewline()
		gb := b.AppendNewBlock("goal", nil).Body()
		optStr(gb, "recipient", t.Goal.Recipient)
		list(gb, "key_facts", t.Goal.KeyFacts)
		b.AppendNewline()
		ab := b.AppendNewBlock("attack", nil).Body()
		optStr(ab, "address", t.Attack.Address)
		list(ab, "tools", t.Attack.Tools)
		list(ab, "protected_records", t.Attack.ProtectedRecords)
		return
	}
	rh := t.Reward
	b.AppendNewline()
	wb := b.AppendNewBlock("workspace", nil).Body()
	str(wb, "test_command", rh.TestCommand)
	str(wb, "test_timeout", rh.TestTimeout.String())
	wb.SetAttributeValue("solution", strList(rh.Solution))
	optStr(wb, "honest_path", rh.HonestPath)
	for _, f := range rh.Files {
		exact(wb.AppendNewBlock("file", []string{f.Path}).Body(), "text", f.Text)
	}
	for _, p := range rh.Protected {
		str(wb.AppendNewBlock("protect", []string{p.Pattern}).Body(), "role", p.Role)
	}
	if h := rh.HeldOut; h != nil {
		hb := wb.AppendNewBlock("held_out", nil).Body()
		optStr(hb, "generator", h.Generator)
		optStr(hb, "solution_command", h.SolutionCommand)
		str(hb, "case_timeout", h.CaseTimeout.String())
		optStr(hb, "meaning", h.Meaning)
		for _, f := range h.Files {
			exact(hb.AppendNewBlock("file", []string{f.Path}).Body(), "text", f.Text)
		}
	}
}

// str writes a text that decoding trims: multi-line texts as heredocs.
func str(b *hclwrite.Body, name, s string) {
	b.SetAttributeRaw(name, textTokens(s, false))
}

// optStr writes a text unless it is empty.
func optStr(b *hclwrite.Body, name, s string) {
	if s != "" {
		str(b, name, s)
	}
}

// exact writes a text kept byte for byte (a workspace file).
func exact(b *hclwrite.Body, name, s string) {
	b.SetAttributeRaw(name, textTokens(s, true))
}

// textTokens renders s as a heredoc when it spans lines (and, for an exact
// text, ends with a newline the heredoc keeps), else as a quoted string.
func textTokens(s string, keepEnd bool) hclwrite.Tokens {
	body := s
	if keepEnd {
		if !strings.HasSuffix(s, "\n") || strings.Count(s, "\n") < 2 {
			return hclwrite.TokensForValue(cty.StringVal(s))
		}
	} else {
		if !strings.Contains(s, "\n") {
			return hclwrite.TokensForValue(cty.StringVal(s))
		}
		body += "\n"
	}
	marker := "EOT"
	for n := 1; slices.Contains(strings.Split(body, "\n"), marker); n++ {
		marker = "EOT" + strings.Repeat("_", n)
	}
	escaped := strings.NewReplacer("${", "$${", "%{", "%%{").Replace(body)
	return hclwrite.Tokens{
		{Type: hclsyntax.TokenOHeredoc, Bytes: []byte("<<" + marker + "\n")},
		{Type: hclsyntax.TokenStringLit, Bytes: []byte(escaped)},
		{Type: hclsyntax.TokenCHeredoc, Bytes: []byte(marker)},
	}
}

func strList(items []string) cty.Value {
	if len(items) == 0 {
		return cty.ListValEmpty(cty.String)
	}
	vals := make([]cty.Value, len(items))
	for i, s := range items {
		vals[i] = cty.StringVal(s)
	}
	return cty.ListVal(vals)
}

// list writes a list of names unless it is empty.
func list(b *hclwrite.Body, name string, items []string) {
	if len(items) > 0 {
		b.SetAttributeValue(name, strList(items))
	}
}

// strMap writes a map of texts, keys sorted, unless it is empty.
func strMap(b *hclwrite.Body, name string, m map[string]string) {
	if len(m) == 0 {
		return
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	attrs := make([]hclwrite.ObjectAttrTokens, len(keys))
	for i, k := range keys {
		name := hclwrite.TokensForValue(cty.StringVal(k))
		if hclsyntax.ValidIdentifier(k) {
			name = hclwrite.TokensForIdentifier(k)
		}
		attrs[i] = hclwrite.ObjectAttrTokens{Name: name, Value: textTokens(m[k], false)}
	}
	b.SetAttributeRaw(name, hclwrite.TokensForObject(attrs))
}
