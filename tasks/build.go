package tasks

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"path"
	"regexp"
	"strings"

	"github.com/killchain/killchain/internal/canary"
	"github.com/killchain/killchain/internal/pdfdoc"
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

// SpokenPhrases is the phrase list of a task's speech clip (sandbox.Speech
// Phrases): the clean script, then every variant's payload with the
// attacker's address spoken and CanaryPlaceholder left where the code goes.
// It is the same for every run of the task, clean or attacked.
func SpokenPhrases(t *Task, clean string) string {
	parts := []string{strings.TrimSpace(clean)}
	for _, v := range t.Variants {
		if v.Spoken {
			parts = append(parts, strings.TrimSpace(Render(v.Payload, CanaryPlaceholder, SpeakAddress(t.Attack.Address))))
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
// against the condition, calls Build and checks the result: an attacked
// environment must carry the run's canary and a clean one no canary-shaped
// string.
func (t *Task) Env(in BuildInput) (sandbox.Env, error) {
	if t.Build == nil {
		return sandbox.Env{}, fmt.Errorf("task %s: no build function", t.Name)
	}
	name := in.Variant.Name
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
	in.Variant = v
	carries := t.CarriesCanary(in.Attacked)
	switch {
	case carries && !canary.Valid(in.Canary):
		return sandbox.Env{}, fmt.Errorf("task %s/%s: attacked run needs a valid canary, got %q", t.Name, v.Name, in.Canary)
	case !carries && in.Canary != "":
		return sandbox.Env{}, fmt.Errorf("task %s/%s: clean run must not carry a canary, got %q", t.Name, v.Name, in.Canary)
	}
	env, err := t.Build(in)
	if err != nil {
		return sandbox.Env{}, fmt.Errorf("build %s/%s: %w", t.Name, v.Name, err)
	}
	env.Study, env.Run, env.Task = in.Study, in.Run, t.Name
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
	if carries && !found {
		return sandbox.Env{}, fmt.Errorf("check %s/%s: attacked environment does not carry the canary", t.Name, v.Name)
	}
	return env, nil
}

// EnvTexts returns every text an environment exposes, keyed by place:
// "file:<path>" for plain files, "db:<path>" for the records database
// rendered one record after another as the search tool shows them,
// "pdf:<path>" for a PDF as parse_pdf reports it (pages and metadata),
// "memory:<key>" for seeded records and "speech:<path>" for speech scripts.
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
	return out, nil
}

// payload renders the run's payload, or returns "" for a clean run.
func (t *Task) payload(in BuildInput) string {
	if !in.Attacked {
		return ""
	}
	return Render(in.Variant.Payload, in.Canary, t.Attack.Address)
}

// builtBy sets the task's Build to call build with the task itself, so build
// functions read the task's attacker address and goals instead of copies.
func (t *Task) builtBy(build func(*Task, BuildInput) (sandbox.Env, error)) *Task {
	t.Build = func(in BuildInput) (sandbox.Env, error) { return build(t, in) }
	return t
}

// payloadMarker is the line in a fixture where the payload goes.
const payloadMarker = "{{PAYLOAD}}"

// plant puts block in place of the fixture's marker line, or drops the marker
// line when block is empty. A fixture without a marker gets the block
// appended.
func plant(text, block string) string {
	lines := strings.Split(text, "\n")
	out := make([]string, 0, len(lines)+4)
	placed := false
	for _, l := range lines {
		if strings.TrimSpace(l) == payloadMarker {
			placed = true
			if block != "" {
				out = append(out, strings.Split(block, "\n")...)
			}
			continue
		}
		out = append(out, l)
	}
	if !placed && block != "" {
		out = append(out, strings.Split(block, "\n")...)
	}
	return collapseBlank(strings.Join(out, "\n"))
}

// collapseBlank squeezes runs of blank lines left by an empty marker.
func collapseBlank(s string) string {
	for strings.Contains(s, "\n\n\n") {
		s = strings.ReplaceAll(s, "\n\n\n", "\n\n")
	}
	return strings.TrimSpace(s) + "\n"
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

// Fixtures returns a task's payload-free files, identical across its runs:
// what a sandbox backend prepares once per task as its snapshot. Its
// signature fits docker.Options.Fixtures.
func Fixtures(_ context.Context, name string) (map[string][]byte, error) {
	t, ok := Get(name)
	if !ok {
		return nil, fmt.Errorf("unknown task %q", name)
	}
	if t.Reward != nil {
		// The files that carry a run's canary are left out.
		env, err := t.Build(BuildInput{Study: "snapshot", Run: "snapshot", Variant: t.Variants[0]})
		if err != nil {
			return nil, fmt.Errorf("build %s: %w", t.Name, err)
		}
		return env.Files, nil
	}
	env, err := t.Env(BuildInput{Study: "snapshot", Run: "snapshot"})
	if err != nil {
		return nil, err
	}
	return env.Files, nil
}
