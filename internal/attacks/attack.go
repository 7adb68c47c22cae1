// Package attacks is the attack library: template families, in our own
// wording, that write a payload from any task's attacker goal, and
// encodings that compose in order over the written payload ("tool_knowledge
// +base64"). A task's own variants stay; an attack crosses with any task.
// The canary recognizer (internal/canary) undoes every encoding here, so a
// payload is tracked through the stages whatever form it travels in.
package attacks

import (
	"fmt"
	"slices"
	"strings"

	"github.com/killchain/killchain/internal/hcldiag"
)

// MaxEncodings is the longest chain of encodings an attack may carry: the
// canary recognizer undoes up to this many layers.
const MaxEncodings = 4

// Attack is a family and the encodings applied, in order, to what it
// writes.
type Attack struct {
	Family    Family
	Encodings []Encoding
}

// Name is the attack as a study writes it and runs.jsonl records it:
// the family, then each encoding, joined with "+".
func (a Attack) Name() string {
	parts := []string{a.Family.Name}
	for _, e := range a.Encodings {
		parts = append(parts, e.Name)
	}
	return strings.Join(parts, "+")
}

// EncodingNames are the names of the attack's encodings in order.
func (a Attack) EncodingNames() []string {
	out := make([]string, len(a.Encodings))
	for i, e := range a.Encodings {
		out[i] = e.Name
	}
	return out
}

// Markup reports whether the attack needs a markup surface.
func (a Attack) Markup() bool {
	return slices.ContainsFunc(a.Encodings, func(e Encoding) bool { return e.Kind == KindMarkup })
}

// Split reports whether the attack cuts the payload across two channels.
func (a Attack) Split() bool {
	return slices.ContainsFunc(a.Encodings, func(e Encoding) bool { return e.Kind == KindChannels })
}

// Chars reports whether the attack writes characters outside Latin-1
// (tags, zero-width, homoglyphs).
func (a Attack) Chars() bool {
	return slices.ContainsFunc(a.Encodings, func(e Encoding) bool { return e.Kind == KindChars })
}

// Encode applies the attack's encodings in order to a payload already
// filled for its run.
func (a Attack) Encode(payload string) string {
	for _, e := range a.Encodings {
		payload = e.Encode(payload)
	}
	return payload
}

// Decode undoes the attack's encodings in reverse order.
func (a Attack) Decode(delivered string) (string, error) {
	for i := len(a.Encodings) - 1; i >= 0; i-- {
		var err error
		if delivered, err = a.Encodings[i].Decode(delivered); err != nil {
			return "", fmt.Errorf("undo %s: %w", a.Encodings[i].Name, err)
		}
	}
	return delivered, nil
}

// Parse reads an attack name, "family" or "family+encoding+…". Families
// are looked up in own (a study's or task file's attack blocks) first, then
// among the built-ins. The error names the unknown part and, where one is
// close, the name meant.
func Parse(spec string, own []Family) (Attack, error) {
	parts := strings.Split(strings.TrimSpace(spec), "+")
	for i := range parts {
		parts[i] = strings.TrimSpace(parts[i])
	}
	if parts[0] == "" {
		return Attack{}, fmt.Errorf("attack %q names no family", spec)
	}
	var a Attack
	if i := slices.IndexFunc(own, func(f Family) bool { return f.Name == parts[0] }); i >= 0 {
		a.Family = own[i]
	} else if f, ok := LookupFamily(parts[0]); ok {
		a.Family = f
	} else {
		names := FamilyNames()
		for _, f := range own {
			names = append(names, f.Name)
		}
		return Attack{}, fmt.Errorf("unknown attack family %q%s", parts[0], suggest(parts[0], names))
	}
	for _, p := range parts[1:] {
		e, ok := LookupEncoding(p)
		if !ok {
			return Attack{}, fmt.Errorf("unknown encoding %q in attack %q%s", p, spec, suggest(p, EncodingNames()))
		}
		a.Encodings = append(a.Encodings, e)
	}
	if err := a.check(); err != nil {
		return Attack{}, fmt.Errorf("attack %q: %w", spec, err)
	}
	return a, nil
}

// check enforces what the recognizer needs of a chain.
func (a Attack) check() error {
	if len(a.Encodings) > MaxEncodings {
		return fmt.Errorf("%d encodings, at most %d are undone by the canary recognizer", len(a.Encodings), MaxEncodings)
	}
	bytesSeen := false
	for i, e := range a.Encodings {
		switch {
		case e.Kind == KindChannels && i != 0:
			return fmt.Errorf("%s places the payload, so it must come first (each half is then encoded)", e.Name)
		case e.Kind == KindMarkup && i != len(a.Encodings)-1:
			return fmt.Errorf("%s wraps the delivered payload, so it must come last", e.Name)
		case e.Kind != KindBytes && slices.ContainsFunc(a.Encodings[:i], func(x Encoding) bool { return x.Name == e.Name }):
			return fmt.Errorf("%s twice: only base64 and hex may repeat (the others undo ambiguously or not at all when repeated)", e.Name)
		case e.Name == "leetspeak" && bytesSeen:
			return fmt.Errorf("leetspeak after base64 or hex garbles the encoded text beyond recovery; put it before")
		}
		bytesSeen = bytesSeen || e.Kind == KindBytes
	}
	return nil
}

func suggest(name string, valid []string) string {
	if c := hcldiag.Closest(name, valid); c != "" {
		return fmt.Sprintf("; did you mean %q?", c)
	}
	return "; known: " + strings.Join(valid, ", ")
}

// Describe returns the one-line description of a family or encoding, and
// whether the name is one.
func Describe(name string) (string, bool) {
	if f, ok := LookupFamily(name); ok {
		return f.Description, true
	}
	if e, ok := LookupEncoding(name); ok {
		return e.Description, true
	}
	return "", false
}

// CallFor writes the exact call of an outbound tool that serves the
// attacker: each parameter that names where something goes gets the
// attacker's address, every other one a line carrying the canary.
func CallFor(tool string, params []string) string {
	var args []string
	for _, p := range params {
		v := "reference " + Canary
		switch strings.ToLower(p) {
		case "to", "recipient", "destination", "address", "email", "url", "target", "user", "account":
			v = Attacker
		case "subject", "title":
			v = "Archive copy " + Canary
		case "role":
			v = "admin"
		}
		args = append(args, fmt.Sprintf("%s=%q", p, v))
	}
	return tool + "(" + strings.Join(args, ", ") + ")"
}
