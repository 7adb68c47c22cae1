package tasks

import (
	"encoding/json"
	"fmt"
	"path"
	"slices"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"
	ctyjson "github.com/zclconf/go-cty/cty/json"

	"github.com/killchain/killchain/internal/hcldiag"
	"github.com/killchain/killchain/internal/tools"
	"github.com/killchain/killchain/internal/world"
)

type rawEnvironment struct {
	Description *string        `hcl:"description,optional"`
	State       hcl.Expression `hcl:"state,optional"`
	Body        hcl.Body       `hcl:",remain"`
}

type rawVector struct {
	Default string `hcl:"default"`
}

type rawEnvTool struct {
	Description string         `hcl:"description"`
	Level       *string        `hcl:"level,optional"`
	Parameters  *string        `hcl:"parameters,optional"`
	Outbound    *bool          `hcl:"outbound,optional"`
	Untrusted   *bool          `hcl:"untrusted,optional"`
	FreeText    []string       `hcl:"free_text,optional"`
	ErrorIf     hcl.Expression `hcl:"error_if,optional"`
	Update      hcl.Expression `hcl:"update,optional"`
	Result      hcl.Expression `hcl:"result,optional"`
}

var envBlocks = map[string]int{"vector": 1, "tool": 1}

// environment decodes an environment block: its state (an HCL object, or
// a JSON or YAML file beside the task file), its vectors and its tools,
// every expression compiled against the state's shape. It is nil when the
// block has errors.
func (d *decoder) environment(b *hcl.Block) *Environment {
	before := errorCount(d.l.Diags)
	var raw rawEnvironment
	bc := hcldiag.Decode(d.l, b, d.ctx, &raw)
	env := &Environment{Name: bc.Name, Description: trimmed(deref(raw.Description, "")),
		Source: Source{File: d.o.File, Text: blockText(d.src, b), Range: *hcldiag.LabelRange(b)}}
	if !hcldiag.ValidName(env.Name) {
		d.l.Errorf(bc.Label(), "Invalid environment name",
			"The environment name %q must start with a letter or digit and hold only letters, digits, '.', '_' and '-'.", env.Name)
	}
	found := d.state(bc, raw.State, env)
	d.unfilled(b)
	var toolBlocks []*hcl.Block
	if raw.Body != nil {
		for _, nb := range d.nested(raw.Body, envBlocks, "An environment block") {
			switch nb.Type {
			case "vector":
				var rv rawVector
				vc := hcldiag.Decode(d.l, nb, d.ctx, &rv)
				if !hcldiag.ValidName(vc.Name) {
					d.l.Errorf(vc.Label(), "Invalid vector name", "A vector's name is letters, digits, '_' and '-'; %q is not.", vc.Name)
				}
				if d.unique("vector", vc.Name, nb) {
					env.Vectors = append(env.Vectors, Vector{Name: vc.Name, Default: trimmed(rv.Default)})
				}
			case "tool":
				toolBlocks = append(toolBlocks, nb)
			}
		}
	}
	if env.State == nil {
		// Without a state there is no shape to compile the tools against.
		return nil
	}
	d.checkVectors(env, found)
	shape := world.ShapeOf(env.State)
	for _, tb := range toolBlocks {
		if tl, ok := d.envTool(tb, shape); ok {
			env.Tools = append(env.Tools, tl)
		}
	}
	if errorCount(d.l.Diags) > before {
		return nil
	}
	return env
}

// state decodes the state attribute into env.State and returns every
// {{…}} written in it (in the HCL, or in the files it read), for the
// vector checks.
func (d *decoder) state(bc *hcldiag.Block, expr hcl.Expression, env *Environment) []found {
	if !bc.Has("state") {
		d.l.Errorf(bc.Header(), "Missing state", "An environment needs state = { … }: its initial state as an object, written in HCL or read with yamldecode(file(\"state.yaml\")).")
		return nil
	}
	d.reads = nil
	v, diags := expr.Value(d.ctx)
	d.l.Add(diags)
	if diags.HasErrors() {
		return nil
	}
	rng := bc.Rng("state")
	if !v.IsWhollyKnown() || v.IsNull() || !(v.Type().IsObjectType() || v.Type().IsMapType()) {
		d.l.Errorf(rng, "Invalid state", "The state must be an object (a map of field names to values); this is %s.", friendly(v))
		return nil
	}
	js, err := ctyjson.Marshal(v, v.Type())
	if err != nil {
		d.l.Errorf(rng, "Invalid state", "The state cannot be written as JSON: %v.", err)
		return nil
	}
	if len(js) > world.MaxStateBytes {
		d.l.Errorf(rng, "State too large", "The state is %d bytes as JSON, more than the %d (8 MiB) a state may hold; a run's state travels into its sandbox and back.", len(js), world.MaxStateBytes)
		return nil
	}
	st, err := world.Decode(js)
	if err != nil {
		d.l.Errorf(rng, "Invalid state", "%v.", err)
		return nil
	}
	env.State = st
	r := expr.Range()
	var out []found
	if r.End.Byte <= len(d.src) && r.Start.Byte <= r.End.Byte {
		out = scanBraces(d.o.File, d.src[r.Start.Byte:r.End.Byte], r.Start)
	}
	for _, rd := range d.reads {
		out = append(out, scanBraces(path.Join(path.Dir(d.o.File), rd.name), rd.data, hcl.Pos{Line: 1, Column: 1})...)
	}
	return out
}

// unfilled reports a placeholder written in an environment outside its
// state (a tool's description, a vector's default): nothing fills it
// there.
func (d *decoder) unfilled(b *hcl.Block) {
	body, ok := b.Body.(*hclsyntax.Body)
	if !ok {
		return
	}
	var walk func(body *hclsyntax.Body, top bool)
	walk = func(body *hclsyntax.Body, top bool) {
		for _, name := range attrOrder(body) {
			if top && name == "state" {
				continue
			}
			r := body.Attributes[name].Expr.Range()
			if r.End.Byte > len(d.src) || r.Start.Byte > r.End.Byte {
				continue
			}
			for _, f := range scanBraces(d.o.File, d.src[r.Start.Byte:r.End.Byte], r.Start) {
				if textContext.allowed(f.inner) {
					rng := f.rng
					d.l.Errorf(&rng, "Placeholder outside the state", "{{%s}} is filled nowhere in an environment but its state: a payload's place is {{PAYLOAD:vector}} in a string of the state.", f.inner)
				}
			}
		}
		for _, nb := range body.Blocks {
			walk(nb.Body, false)
		}
	}
	walk(body, true)
}

func friendly(v cty.Value) string {
	switch {
	case v.IsNull():
		return "null"
	case !v.IsWhollyKnown():
		return "not known when the file is read"
	}
	return v.Type().FriendlyName()
}

// checkVectors checks the placeholders of a state: each is
// {{PAYLOAD:vector}} of a declared vector, and each vector stands in some
// string of the state.
func (d *decoder) checkVectors(env *Environment, fs []found) {
	names := make([]string, len(env.Vectors))
	for i, v := range env.Vectors {
		names[i] = v.Name
	}
	clean := true
	for _, f := range fs {
		name, part, hasPart := strings.Cut(f.inner, ":")
		if !textContext.allowed(f.inner) && !attackContext.allowed(f.inner) {
			clean = clean && !fileContext.looksLikePlaceholder(f.inner)
			continue // CheckPlaceholders reports it
		}
		clean = clean && name == "PAYLOAD" && hasPart && slices.Contains(names, part)
		rng := f.rng
		switch {
		case name != "PAYLOAD":
			d.l.Errorf(&rng, "Placeholder in a state", "Only {{PAYLOAD:vector}} stands in a state (a vector's default in clean runs, the payload in attacked ones); {{%s}} would stay as written.", f.inner)
		case !hasPart:
			d.l.Errorf(&rng, "Placeholder without a vector", "In a state a payload's place names its vector: {{PAYLOAD:name}}, with a vector \"name\" block in the environment%s.", vectorList(names))
		case !slices.Contains(names, part):
			hint := ""
			if best := hcldiag.Closest(part, names); best != "" {
				hint = fmt.Sprintf("; did you mean %q?", best)
			}
			d.l.Errorf(&rng, "Unknown vector", "Environment %q declares no vector %q%s%s.", env.Name, part, hint, vectorList(names))
		}
	}
	if !clean {
		return // a vector misspelt in the state is reported there
	}
	used := map[string]bool{}
	walkStrings(env.State, func(s string) {
		for _, p := range placeholders(s) {
			used[p] = true
		}
	})
	for _, v := range env.Vectors {
		if !used[v.Name] {
			d.l.Errorf(d.items["vector "+v.Name], "Vector nowhere in the state", "No string of environment %q's state holds {{PAYLOAD:%s}}, so nothing is ever planted there.", env.Name, v.Name)
		}
	}
}

func vectorList(names []string) string {
	if len(names) == 0 {
		return " (it declares none)"
	}
	return " (its vectors: " + strings.Join(names, ", ") + ")"
}

// walkStrings calls f on every string of a state value.
func walkStrings(v any, f func(string)) {
	switch x := v.(type) {
	case string:
		f(x)
	case []any:
		for _, e := range x {
			walkStrings(e, f)
		}
	case map[string]any:
		for _, k := range sortedKeys(x) {
			walkStrings(x[k], f)
		}
	}
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// envTool decodes one tool of an environment and compiles its
// expressions against the state's shape and its parameters.
func (d *decoder) envTool(b *hcl.Block, shape *world.Shape) (EnvTool, bool) {
	var raw rawEnvTool
	bc := hcldiag.Decode(d.l, b, d.ctx, &raw)
	tl := Tool{Name: bc.Name, Description: trimmed(raw.Description), Level: tools.Read, Outbound: deref(raw.Outbound, false)}
	tl.Untrusted = deref(raw.Untrusted, !tl.Outbound)
	switch {
	case !toolNameRE.MatchString(tl.Name):
		d.l.Errorf(bc.Label(), "Invalid tool name", "A tool name is lower-case letters, digits and '_', starting with a letter; %q is not.", tl.Name)
	case isBuiltinTool(tl.Name):
		d.l.Errorf(bc.Label(), "Built-in tool redefined", "%q is a built-in tool; give the environment's tool another name.", tl.Name)
	}
	if tl.Description == "" && bc.OK("description") {
		d.l.Errorf(bc.Rng("description"), "Empty description", "A model chooses a tool by its description; tool %q has none.", tl.Name)
	}
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
	paramsOK := !bc.Bad["parameters"]
	if bc.OK("parameters") {
		schema, err := parseSchema(*raw.Parameters)
		if err != nil {
			d.l.Errorf(bc.Rng("parameters"), "Invalid parameters", "parameters must be a JSON schema of an object: %v.", err)
			paramsOK = false
		} else {
			tl.Parameters = schema
		}
	}
	et := EnvTool{Tool: tl, FreeText: raw.FreeText}
	d.freeText(bc, &et)
	et.Def = world.ToolDef{Name: tl.Name, Parameters: tl.Parameters, Outbound: tl.Outbound}
	guards := d.exprMap(bc, "error_if")
	for _, g := range guards {
		et.Def.Guards = append(et.Def.Guards, world.Guard{When: g.key, Message: trimmed(g.value)})
	}
	updates := d.exprMap(bc, "update")
	for _, u := range updates {
		et.Def.Updates = append(et.Def.Updates, world.Update{Path: u.key, Expr: trimmed(u.value)})
	}
	var result hcl.Expression
	if bc.Has("result") {
		result = raw.Result
		v, diags := raw.Result.Value(d.ctx)
		d.l.Add(diags)
		if !diags.HasErrors() {
			if v.IsNull() || !v.IsKnown() || v.Type() != cty.String {
				d.l.Errorf(bc.Rng("result"), "Invalid result", "result is an expression (CEL) written as a string, over state and args; this is %s.", friendly(v))
			} else {
				et.Def.Result = trimmed(v.AsString())
			}
		}
	}
	if paramsOK {
		_, probs := world.CompileTool(shape, et.Def)
		for _, p := range probs {
			d.toolProblem(tl.Name, p, bc, guards, updates, result)
		}
	}
	return et, d.unique("tool", tl.Name, b)
}

// freeText checks free_text: each a declared string parameter.
func (d *decoder) freeText(bc *hcldiag.Block, et *EnvTool) {
	params := schemaProps(et.Parameters)
	var schema struct {
		Properties map[string]struct {
			Type any `json:"type"`
		} `json:"properties"`
	}
	_ = json.Unmarshal(et.Parameters, &schema)
	for i, name := range et.FreeText {
		switch p, ok := schema.Properties[name]; {
		case !ok:
			d.l.Errorf(bc.Elem("free_text", i), "Unknown parameter", "Tool %q has no parameter %q (%s).", et.Name, name, paramList(params))
		case p.Type != "string":
			d.l.Errorf(bc.Elem("free_text", i), "Free text that is not a string", "free_text names parameters that carry text; %q of tool %q is not a string.", name, et.Name)
		}
	}
}

// entry is one "key" = "value" of an object written in HCL, with the
// expressions of both.
type entry struct {
	key, value       string
	keyExpr, valExpr hcl.Expression
}

// exprMap reads an object attribute of strings in the order it is
// written: error_if's guards are tried in that order.
func (d *decoder) exprMap(bc *hcldiag.Block, name string) []entry {
	a, ok := bc.Attrs[name]
	if !ok {
		return nil
	}
	o, ok := a.Expr.(*hclsyntax.ObjectConsExpr)
	if !ok {
		d.l.Errorf(bc.Rng(name), "Invalid "+name, "%s is written as an object, { \"…\" = \"…\", … }, so that its order is the order written.", name)
		return nil
	}
	var out []entry
	seen := map[string]bool{}
	for _, it := range o.Items {
		k, kd := it.KeyExpr.Value(d.ctx)
		v, vd := it.ValueExpr.Value(d.ctx)
		d.l.Add(kd)
		d.l.Add(vd)
		if kd.HasErrors() || vd.HasErrors() {
			continue
		}
		kr, vr := it.KeyExpr.Range(), it.ValueExpr.Range()
		switch {
		case k.IsNull() || !k.IsKnown() || k.Type() != cty.String:
			d.l.Errorf(&kr, "Invalid "+name, "Each key of %s is a string; this is %s.", name, friendly(k))
		case v.IsNull() || !v.IsKnown() || v.Type() != cty.String:
			d.l.Errorf(&vr, "Invalid "+name, "Each value of %s is a string; this is %s.", name, friendly(v))
		case seen[k.AsString()]:
			d.l.Errorf(&kr, "Duplicate key", "%s names %q twice.", name, k.AsString())
		default:
			seen[k.AsString()] = true
			key := k.AsString()
			if name == "error_if" {
				key = trimmed(key)
			}
			out = append(out, entry{key: key, value: v.AsString(), keyExpr: it.KeyExpr, valExpr: it.ValueExpr})
		}
	}
	return out
}

// toolProblem reports a problem of one of a tool's expressions where it
// stands in the file.
func (d *decoder) toolProblem(tool string, p world.FieldProblem, bc *hcldiag.Block, guards, updates []entry, result hcl.Expression) {
	var expr hcl.Expression
	what := p.Field
	switch {
	case p.Field == "result":
		expr, what = result, "its result"
	case strings.HasPrefix(p.Field, "error_if "):
		var n int
		if _, err := fmt.Sscanf(p.Field, "error_if %d", &n); err == nil && n >= 1 && n <= len(guards) {
			expr, what = guards[n-1].keyExpr, fmt.Sprintf("error_if condition %d", n)
		}
	case strings.HasPrefix(p.Field, "update "):
		upath := strings.TrimPrefix(p.Field, "update ")
		for _, u := range updates {
			if u.key != upath {
				continue
			}
			expr, what = u.valExpr, fmt.Sprintf("update %q", upath)
			if pathProblem(upath, p.Message) {
				r := u.keyExpr.Range()
				d.l.Errorf(&r, "Invalid update path", "Tool %q: update %s.", tool, p.Message)
				return
			}
		}
	case p.Field == "parameters":
		d.l.Errorf(bc.Rng("parameters"), "Invalid parameters", "Tool %q: %s.", tool, p.Message)
		return
	}
	if expr == nil {
		d.l.Errorf(bc.Header(), "Invalid expression", "Tool %q, %s: %s.", tool, what, p.Problem.Error())
		return
	}
	d.exprProblem(expr, true, p.Problem, fmt.Sprintf("Tool %q, %s", tool, what))
}

// pathProblem reports whether a problem of an update is about its path
// rather than its expression.
func pathProblem(upath, msg string) bool {
	if msg == "the path is updated twice" || strings.HasPrefix(msg, fmt.Sprintf("%q", upath)) {
		return true
	}
	parts := strings.Split(upath, ".")
	for i := range parts {
		if strings.HasPrefix(msg, strings.Join(parts[:i+1], ".")+": ") {
			return true
		}
	}
	return false
}

// exprProblem reports a problem CEL found in an expression at its place
// in the file: the expression's place plus the line and column inside it.
func (d *decoder) exprProblem(expr hcl.Expression, trim bool, p world.Problem, what string) {
	loc := locate(expr, d.src, trim)
	pos, exact := loc.pos(p.Line, p.Column)
	if exact && pos.Byte+1 < len(d.src) && d.src[pos.Byte] == '.' {
		// CEL places a field selection at its dot; point at the name.
		pos.Byte++
		pos.Column++
	}
	msg := strings.TrimSuffix(p.Message, ".")
	if !exact {
		msg += fmt.Sprintf(" (line %d, column %d of the expression)", p.Line, p.Column)
	}
	d.l.Errorf(at(loc.whole.Filename, pos), "Invalid expression", "%s: %s.", what, msg)
}
