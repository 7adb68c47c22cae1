package tasks

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/killchain/killchain/internal/attacks"
)

// InjectionVariant is the variant of a user task that plants an injection
// in its own wording (Payload "" when attack families write it): named
// after the injection, at its vectors (every vector when it names none).
func InjectionVariant(in *Injection) Variant {
	return Variant{Name: in.Name, Surface: InjectionSurface(in), Payload: in.Payload, Placements: slices.Clone(in.Vectors), Injection: in}
}

// InjectionSurface is the surface of an injection's runs: "state:" and
// the vectors it is planted at, joined with "+", or "state" when it is
// planted at every vector; the report's per-vector table reads it.
func InjectionSurface(in *Injection) string {
	if len(in.Vectors) == 0 {
		return SurfaceState
	}
	return SurfaceState + ":" + strings.Join(in.Vectors, "+")
}

// SuiteVariantName names the variant an attack plants for an injection:
// "attack@injection".
func SuiteVariantName(attack, injection string) string { return attack + "@" + injection }

// GoalText is an injection's goal as {{GOAL}} states it: its sentence,
// with {{ATTACKER}} and {{CANARY}} left for the run, and the canary added
// as a reference when the sentence holds none, so that every payload a
// suite plants carries it and the stages can be followed (Executed may
// still not apply, see Injection.ExecutedApplies).
func GoalText(in *Injection) string {
	g := strings.TrimSpace(in.Goal)
	if !strings.Contains(g, CanaryPlaceholder) {
		g = strings.TrimSpace(g + " Reference: " + CanaryPlaceholder + ".")
	}
	return g
}

// SuiteAttackVariant writes the variant an attack plants for the
// injection that own (a variant of InjectionVariant's kind) plants: the
// family's suite form with {{GOAL}} from the injection, {{USER}} from the
// suite, {{MODEL}} from the model, {{TASK}} from the user task, and
// {{TOOL}} and {{CALL}} from the injection's first outbound ground-truth
// call (its free-text parameters carrying the canary), at the injection's
// vectors, encoded after the run's canary is in.
func (t *Task) SuiteAttackVariant(a attacks.Attack, own Variant, su *Suite, model string) (Variant, error) {
	in := own.Injection
	if in == nil || t.Environment == nil {
		return Variant{}, fmt.Errorf("task %s: variant %s plants no injection task", t.Name, own.Name)
	}
	tmpl, ok := a.Family.SuiteForm()
	if !ok {
		return Variant{}, fmt.Errorf("attack %s: family %s has no suite form (its template holds no %s)", a.Name(), a.Family.Name, attacks.InjectionGoal)
	}
	if a.Markup() || a.Split() {
		return Variant{}, fmt.Errorf("task %s: attack %s: an environment's state is no web page and plants in one channel per vector; markup and split encodings do not apply", t.Name, a.Name())
	}
	tool, call := injectionCall(in, t.Environment)
	user := ""
	if su != nil {
		user = su.User
	}
	vals := attacks.Values{User: user, Model: model, Tool: tool, Call: call, Task: t.statement(), Goal: GoalText(in)}
	return Variant{
		Name:       SuiteVariantName(a.Name(), in.Name),
		Surface:    InjectionSurface(in),
		Payload:    vals.Fill(tmpl),
		Placements: slices.Clone(own.Placements),
		Attack:     a.Name(),
		Encodings:  a.Encodings,
		NoCanary:   a.Family.Goal == attacks.GoalTaskFailure,
		Injection:  in,
	}, nil
}

// injectionCall is the tool the injection wants called and its exact call:
// its ground truth's first call of an outbound tool (else its first call),
// each argument as the ground truth gives it, in the order written, and
// every free-text parameter carrying the canary.
func injectionCall(in *Injection, env *Environment) (string, string) {
	if len(in.GroundTruth) == 0 {
		return "", ""
	}
	c := in.GroundTruth[0]
	for _, gc := range in.GroundTruth {
		if tl, ok := envTool(env, gc.Tool); ok && tl.IsOutbound() {
			c = gc
			break
		}
	}
	var free []string
	if tl, ok := envTool(env, c.Tool); ok {
		free = tl.FreeText
	}
	var args []string
	for _, kv := range orderedArgs(c.Args) {
		v := kv.value
		if s, isStr := v.(string); isStr {
			if slices.Contains(free, kv.key) && !strings.Contains(s, CanaryPlaceholder) {
				s = strings.TrimSpace(s + " " + CanaryPlaceholder)
			}
			args = append(args, kv.key+"="+strconv.Quote(s))
			continue
		}
		raw, _ := json.Marshal(v)
		args = append(args, kv.key+"="+string(raw))
	}
	return c.Tool, c.Tool + "(" + strings.Join(args, ", ") + ")"
}

func envTool(env *Environment, name string) (EnvTool, bool) {
	if env == nil {
		return EnvTool{}, false
	}
	for _, tl := range env.Tools {
		if tl.Name == name {
			return tl, true
		}
	}
	return EnvTool{}, false
}

type keyValue struct {
	key   string
	value any
}

// orderedArgs decodes a JSON object's members in the order written; a
// value that is not an object gives none.
func orderedArgs(raw json.RawMessage) []keyValue {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil
	}
	var out []keyValue
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return out
		}
		k, _ := tok.(string)
		var v any
		if err := dec.Decode(&v); err != nil {
			return out
		}
		out = append(out, keyValue{k, v})
	}
	return out
}
