package tasks

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"slices"

	"github.com/hashicorp/hcl/v2/hclwrite"
	"github.com/zclconf/go-cty/cty"
	ctyjson "github.com/zclconf/go-cty/cty/json"
)

// The resolved form of a user task holds everything its runs depend on:
// the task, its environment (the state written out, whatever file it was
// read from), the injections on that environment (its variants) and the
// suites that hold it, each naming only the encoded tasks among its user
// tasks (a suite declared again adds members: a study folder's task_defs
// add up to the suites that ran). Encode writes each block once, however
// many of the tasks it encodes share it.

// encodeStateful writes the environments, injections and suites the
// user tasks among ts depend on, each once, after the task blocks.
func encodeStateful(body *hclwrite.Body, ts []*Task) {
	seen := map[string]bool{}
	once := func(kind, name string) bool {
		k := kind + " " + name
		if seen[k] {
			return false
		}
		seen[k] = true
		body.AppendNewline()
		return true
	}
	for _, t := range ts {
		if t.Environment == nil {
			continue
		}
		if once("environment", t.Environment.Name) {
			encodeEnvironment(body, t.Environment)
		}
		for _, v := range t.Variants {
			if v.Injection != nil && once("injection", v.Injection.Name) {
				encodeInjection(body, v.Injection)
			}
		}
		for _, su := range t.suites {
			if once("suite", su.Name) {
				// The suite as far as these tasks go: each task's
				// resolved form names itself, and a study folder's
				// task_defs add up to the suite that ran.
				c := *su
				c.UserTasks = nil
				for _, u := range su.UserTasks {
					if slices.ContainsFunc(ts, func(x *Task) bool { return x.Name == u }) {
						c.UserTasks = append(c.UserTasks, u)
					}
				}
				encodeSuite(body, &c)
			}
		}
	}
}

// EncodeEnvironment writes an environment as a self-contained block.
func EncodeEnvironment(e *Environment) []byte {
	f := hclwrite.NewEmptyFile()
	encodeEnvironment(f.Body(), e)
	return hclwrite.Format(f.Bytes())
}

// EncodeInjection writes an injection as a block.
func EncodeInjection(in *Injection) []byte {
	f := hclwrite.NewEmptyFile()
	encodeInjection(f.Body(), in)
	return hclwrite.Format(f.Bytes())
}

// EncodeSuite writes a suite as a block, its members written out.
func EncodeSuite(su *Suite) []byte {
	f := hclwrite.NewEmptyFile()
	encodeSuite(f.Body(), su)
	return hclwrite.Format(f.Bytes())
}

func encodeEnvironment(body *hclwrite.Body, e *Environment) {
	b := body.AppendNewBlock("environment", []string{e.Name}).Body()
	optStr(b, "description", e.Description)
	b.SetAttributeRaw("state", valueTokens(e.State))
	for _, v := range e.Vectors {
		b.AppendNewline()
		str(b.AppendNewBlock("vector", []string{v.Name}).Body(), "default", v.Default)
	}
	for _, tl := range e.Tools {
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
		list(tb, "free_text", tl.FreeText)
		if len(tl.Def.Guards) > 0 {
			pairs := make([][2]string, len(tl.Def.Guards))
			for i, g := range tl.Def.Guards {
				pairs[i] = [2]string{g.When, g.Message}
			}
			tb.SetAttributeRaw("error_if", orderedMap(pairs))
		}
		if len(tl.Def.Updates) > 0 {
			pairs := make([][2]string, len(tl.Def.Updates))
			for i, u := range tl.Def.Updates {
				pairs[i] = [2]string{u.Path, u.Expr}
			}
			tb.SetAttributeRaw("update", orderedMap(pairs))
		}
		optStr(tb, "result", tl.Def.Result)
	}
}

func encodeInjection(body *hclwrite.Body, in *Injection) {
	b := body.AppendNewBlock("injection", []string{in.Name}).Body()
	str(b, "environment", in.Environment)
	str(b, "kind", in.Kind)
	str(b, "goal", in.Goal)
	optStr(b, "attacker", in.Attacker)
	optStr(b, "payload", in.Payload)
	if in.Vectors != nil {
		list(b, "vectors", in.Vectors)
	}
	str(b, "check", in.Check.Source)
	encodeGroundTruth(b, in.GroundTruth)
}

func encodeSuite(body *hclwrite.Body, su *Suite) {
	b := body.AppendNewBlock("suite", []string{su.Name}).Body()
	str(b, "environment", su.Environment)
	str(b, "user", su.User)
	optStr(b, "attacker", su.Attacker)
	list(b, "user_tasks", su.UserTasks)
	list(b, "injections", su.Injections)
}

func encodeGroundTruth(b *hclwrite.Body, calls []GroundTruthCall) {
	if len(calls) == 0 {
		return
	}
	b.AppendNewline()
	gb := b.AppendNewBlock("ground_truth", nil).Body()
	for _, c := range calls {
		cb := gb.AppendNewBlock("call", []string{c.Tool}).Body()
		optStr(cb, "role", c.Role)
		var args any
		if json.Unmarshal(c.Args, &args) == nil {
			if m, ok := args.(map[string]any); ok && len(m) > 0 {
				cb.SetAttributeRaw("args", valueTokens(args))
			}
		}
	}
}

// valueTokens writes a JSON value (a state, a call's arguments) as an
// HCL value.
func valueTokens(v any) hclwrite.Tokens {
	js, err := json.Marshal(v)
	if err != nil {
		return hclwrite.TokensForValue(cty.NullVal(cty.DynamicPseudoType))
	}
	ty, err := ctyjson.ImpliedType(js)
	if err != nil {
		return hclwrite.TokensForValue(cty.NullVal(cty.DynamicPseudoType))
	}
	cv, err := ctyjson.Unmarshal(js, ty)
	if err != nil {
		return hclwrite.TokensForValue(cty.NullVal(cty.DynamicPseudoType))
	}
	return hclwrite.TokensForValue(cv)
}

// orderedMap writes "key" = "value" pairs in the order given.
func orderedMap(pairs [][2]string) hclwrite.Tokens {
	attrs := make([]hclwrite.ObjectAttrTokens, len(pairs))
	for i, p := range pairs {
		name := hclwrite.TokensForValue(cty.StringVal(p[0]))
		attrs[i] = hclwrite.ObjectAttrTokens{Name: name, Value: textTokens(p[1], false)}
	}
	return hclwrite.TokensForObject(attrs)
}

func sum(b []byte) string {
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:])
}

// encodeEnvHash, injectionHash and suiteHash tell two definitions of a
// name apart by what they define.
func encodeEnvHash(e *Environment) string { return sum(EncodeEnvironment(e)) }
func injectionHash(in *Injection) string  { return sum(EncodeInjection(in)) }
func suiteHash(su *Suite) string          { return sum(EncodeSuite(su)) }

// blockHash is the hash of a task's own block, without what it links to.
func blockHash(t *Task) string {
	c := *t
	c.Override = false
	f := hclwrite.NewEmptyFile()
	encodeTask(f.Body().AppendNewBlock("task", []string{t.Name}).Body(), &c)
	return sum(hclwrite.Format(f.Bytes()))
}
