package tasks

import (
	"fmt"
	"slices"
	"strings"

	"github.com/killchain/killchain/internal/attacks"
	"github.com/killchain/killchain/internal/tools"
)

// AttackPlacements lists the task's own variants that stand for its
// distinct placement sets, in declaration order: an attack is planted
// where each of them plants, one cell per set (most tasks have one; a PDF
// task has one per part of the document).
func (t *Task) AttackPlacements() []Variant {
	var out []Variant
	var seen []string
	for _, v := range t.Variants {
		var filled []string
		for _, p := range t.PlacementNames() {
			if _, ok := v.Wording(p); ok {
				filled = append(filled, p)
			}
		}
		key := strings.Join(filled, ",")
		if slices.Contains(seen, key) {
			continue
		}
		seen = append(seen, key)
		out = append(out, v)
	}
	return out
}

// AttackVariantName names the variant an attack plants where own plants:
// the attack's name, and "@own" when the task has more than one placement
// set.
func (t *Task) AttackVariantName(attack string, own Variant) string {
	if len(t.AttackPlacements()) > 1 {
		return attack + "@" + own.Name
	}
	return attack
}

// AttackVariant writes the variant an attack plants where the task's own
// variant own plants: the family's template with the per-cell placeholders
// filled from the task (the user is the one the legitimate report goes to,
// the task the first agent's prompt, the tool the attacker's outbound tool
// with its exact call) and model, encoded after the run's canary is in.
func (t *Task) AttackVariant(a attacks.Attack, own Variant, model string) (Variant, error) {
	if own.Spoken && len(a.Encodings) > 0 {
		return Variant{}, fmt.Errorf("task %s: attack %s: an encoded payload cannot be spoken in an audio clip", t.Name, a.Name())
	}
	if a.Markup() && !t.markupOnly(own) {
		return Variant{}, fmt.Errorf("task %s: attack %s: markup encodings need a web page surface, variant %s plants on %s", t.Name, a.Name(), own.Name, own.Surface)
	}
	if a.Chars() && strings.Contains(own.Surface, "pdf_") {
		return Variant{}, fmt.Errorf("task %s: attack %s: a PDF's text keeps only Latin-1 characters, so tags, zero-width and homoglyph encodings do not survive on %s", t.Name, a.Name(), own.Surface)
	}
	filled := t.filled(own)
	if a.Split() && len(filled) < 2 {
		return Variant{}, fmt.Errorf("task %s: attack %s: split needs two channels, variant %s plants in %d", t.Name, a.Name(), own.Name, len(filled))
	}
	tool, call := t.attackCall()
	vals := attacks.Values{User: t.Goal.Recipient, Model: model, Tool: tool, Call: call, Task: t.statement()}
	v := Variant{
		Name:       t.AttackVariantName(a.Name(), own),
		Surface:    own.Surface,
		Payload:    vals.Fill(a.Family.Template),
		Placements: filled,
		Spoken:     own.Spoken,
		Attack:     a.Name(),
		Encodings:  a.Encodings,
		NoCanary:   a.Family.Goal == attacks.GoalTaskFailure,
		Injection:  own.Injection,
	}
	if a.Split() {
		// One half in each of the first two channels the variant fills.
		first, second := attacks.Split(v.Payload)
		v.Payload, v.Placements = "", filled[:2]
		v.Payloads = map[string]string{filled[0]: first, filled[1]: second}
	}
	return v, nil
}

// filled lists the placements own fills.
func (t *Task) filled(own Variant) []string {
	out := []string{}
	for _, p := range t.PlacementNames() {
		if _, ok := own.Wording(p); ok {
			out = append(out, p)
		}
	}
	return out
}

// markupOnly reports whether every placement own fills is on a web page.
func (t *Task) markupOnly(own Variant) bool {
	for _, p := range t.Placements() {
		if _, ok := own.Wording(p.Name); ok && p.Surface != SurfaceWebPage {
			return false
		}
	}
	return true
}

// attackCall is the outbound tool the attacker wants and its exact call:
// the task's attack tool, else send_report when a role is offered it,
// else the task's first outbound tool.
func (t *Task) attackCall() (string, string) {
	name := ""
	switch {
	case len(t.Attack.Tools) > 0:
		name = t.Attack.Tools[0]
	case t.Offered(tools.SendReport):
		name = tools.SendReport
	default:
		for _, tl := range t.Tools {
			if tl.Outbound {
				name = tl.Name
				break
			}
		}
	}
	if name == "" {
		return "", ""
	}
	spec, ok := t.Spec(name)
	if !ok {
		return name, ""
	}
	return name, attacks.CallFor(name, tools.Properties(spec.Parameters))
}

// statement is a one-line statement of the user's task: the first line of
// the first agent's prompt, without its closing full stop.
func (t *Task) statement() string {
	if len(t.Roles) == 0 {
		return ""
	}
	line, _, _ := strings.Cut(strings.TrimSpace(t.Roles[0].Prompt), "\n")
	line = strings.TrimSuffix(strings.TrimSpace(line), ".")
	if line != "" {
		line = strings.ToLower(line[:1]) + line[1:]
	}
	return line
}
