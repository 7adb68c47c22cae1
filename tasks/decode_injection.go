package tasks

import (
	"encoding/json"
	"slices"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"
	ctyjson "github.com/zclconf/go-cty/cty/json"

	"github.com/killchain/killchain/internal/hcldiag"
	"github.com/killchain/killchain/internal/world"
)

type rawInjection struct {
	Environment string         `hcl:"environment"`
	Kind        string         `hcl:"kind"`
	Goal        string         `hcl:"goal"`
	Attacker    *string        `hcl:"attacker,optional"`
	Payload     *string        `hcl:"payload,optional"`
	Vectors     []string       `hcl:"vectors,optional"`
	Check       hcl.Expression `hcl:"check"`
	Body        hcl.Body       `hcl:",remain"`
}

type rawSuite struct {
	Environment string   `hcl:"environment"`
	User        string   `hcl:"user"`
	Attacker    *string  `hcl:"attacker,optional"`
	UserTasks   []string `hcl:"user_tasks,optional"`
	Injections  []string `hcl:"injections,optional"`
}

type rawGroundTruth struct {
	Body hcl.Body `hcl:",remain"`
}

type rawCall struct {
	Args hcl.Expression `hcl:"args,optional"`
	Role *string        `hcl:"role,optional"`
}

var (
	injectionBlocks   = map[string]int{"ground_truth": 0}
	groundTruthBlocks = map[string]int{"call": 1}
)

// Kinds lists the kinds an injection may name.
var Kinds = []string{KindExfiltration, KindSabotage, KindFinancial, KindPrivilege, KindMultiStep}

// gtCall is one decoded ground-truth call, with where it stands.
type gtCall struct {
	call GroundTruthCall
	args map[string]any
	bc   *hcldiag.Block
}

// pendingInjection is an injection waiting for Link to find its
// environment, with the decoder that knows where its parts stand.
type pendingInjection struct {
	in *Injection
	d  *decoder
	bc *hcldiag.Block
}

// pendingSuite is a suite waiting for Link.
type pendingSuite struct {
	su       *Suite
	d        *decoder
	bc       *hcldiag.Block
	explicit [2]bool // user_tasks, injections written out
}

// injection decodes an injection block; Link checks what needs its
// environment. It is nil when the block has errors.
func (d *decoder) injection(b *hcl.Block) *pendingInjection {
	before := errorCount(d.l.Diags)
	var raw rawInjection
	bc := hcldiag.Decode(d.l, b, d.ctx, &raw)
	in := &Injection{Name: bc.Name, Environment: raw.Environment, Kind: raw.Kind, Goal: trimmed(raw.Goal),
		Attacker: trimmed(deref(raw.Attacker, "")), Payload: trimmed(deref(raw.Payload, "")), Vectors: raw.Vectors,
		Source: Source{File: d.o.File, Text: blockText(d.src, b), Range: *hcldiag.LabelRange(b)}}
	d.checkName(bc, "injection")
	if bc.OK("kind") && !slices.Contains(Kinds, in.Kind) {
		d.l.Errorf(bc.Rng("kind"), "Unknown kind", "%q is not an injection kind; use one of %s.", in.Kind, hcldiag.QuoteList(Kinds))
	}
	if bc.OK("goal") && in.Goal == "" {
		d.l.Errorf(bc.Rng("goal"), "Empty goal", "goal is the attacker's goal in one sentence; attack templates write it where {{GOAL}} stands.")
	}
	if bc.OK("attacker") && in.Attacker == "" {
		d.l.Errorf(bc.Rng("attacker"), "Empty attacker", "attacker is who the attacker is ({{ATTACKER}}): an address, an account, a user name; leave it out to take the suite's.")
	}
	if bc.OK("payload") && !strings.Contains(in.Payload, CanaryPlaceholder) {
		d.l.Errorf(bc.Rng("payload"), "Payload without canary", "The injection's own wording holds no %s, so no stage can be tracked; add it where the attacker's instruction carries a reference.", CanaryPlaceholder)
	}
	if bc.OK("vectors") && len(in.Vectors) == 0 {
		d.l.Errorf(bc.Rng("vectors"), "Empty vectors", "Leave vectors out to plant the injection at every vector of the environment; an empty list plants it nowhere.")
	}
	if bc.OK("check") {
		in.Check = d.checkSource(bc, "check")
	}
	var gt []gtCall
	if raw.Body != nil {
		blocks := d.nested(raw.Body, injectionBlocks, "An injection block")
		if g := d.only(blocks, "ground_truth"); g != nil {
			gt = d.groundTruth(g, false)
		}
	}
	if len(gt) == 0 {
		d.l.Errorf(bc.Label(), "Missing ground truth", "An injection needs ground_truth { call \"tool\" { args = { … } } }: the calls that carry out the attacker's goal; `killchain tasks check` plays them and requires that they make its check true.")
	}
	for _, c := range gt {
		in.GroundTruth = append(in.GroundTruth, c.call)
	}
	if errorCount(d.l.Diags) > before {
		return nil
	}
	d.gt = gt
	return &pendingInjection{in: in, d: d, bc: bc}
}

// suite decodes a suite block; Link resolves its members.
func (d *decoder) suite(b *hcl.Block) *pendingSuite {
	before := errorCount(d.l.Diags)
	var raw rawSuite
	bc := hcldiag.Decode(d.l, b, d.ctx, &raw)
	su := &Suite{Name: bc.Name, Environment: raw.Environment, User: trimmed(raw.User), Attacker: trimmed(deref(raw.Attacker, "")),
		UserTasks: raw.UserTasks, Injections: raw.Injections,
		Source: Source{File: d.o.File, Text: blockText(d.src, b), Range: *hcldiag.LabelRange(b)}}
	d.checkName(bc, "suite")
	if bc.OK("user") && su.User == "" {
		d.l.Errorf(bc.Rng("user"), "Empty user", "user is the name of the person the agents work for ({{USER}} in attack templates).")
	}
	if bc.OK("attacker") && su.Attacker == "" {
		d.l.Errorf(bc.Rng("attacker"), "Empty attacker", "attacker is the attacker's identity for the suite's injections that name none.")
	}
	for _, f := range []struct {
		attr string
		list []string
	}{{"user_tasks", su.UserTasks}, {"injections", su.Injections}} {
		if bc.OK(f.attr) && len(f.list) == 0 {
			d.l.Errorf(bc.Rng(f.attr), "Empty "+f.attr, "Leave %s out to take every one that names the environment; an empty list takes none.", f.attr)
		}
	}
	if errorCount(d.l.Diags) > before {
		return nil
	}
	return &pendingSuite{su: su, d: d, bc: bc, explicit: [2]bool{bc.Has("user_tasks"), bc.Has("injections")}}
}

// checkName reports a block name that is not a plain name, or "none".
func (d *decoder) checkName(bc *hcldiag.Block, kind string) {
	switch {
	case !hcldiag.ValidName(bc.Name):
		d.l.Errorf(bc.Label(), "Invalid "+kind+" name",
			"The %s name %q must start with a letter or digit and hold only letters, digits, '.', '_' and '-'.", kind, bc.Name)
	case bc.Name == "none":
		d.l.Errorf(bc.Label(), "Reserved name", "\"none\" names the clean runs of every task; give the %s another name.", kind)
	}
}

// checkSource reads a CEL condition written as a string attribute; it is
// compiled once the environment is known.
func (d *decoder) checkSource(bc *hcldiag.Block, attr string) Check {
	a := bc.Attrs[attr]
	v, diags := a.Expr.Value(d.ctx)
	d.l.Add(diags)
	if diags.HasErrors() {
		return Check{}
	}
	if v.IsNull() || !v.IsKnown() || v.Type() != cty.String {
		d.l.Errorf(bc.Rng(attr), "Invalid "+attr, "%s is a condition (CEL) written as a string, over initial, state, calls, canary and attacker; this is %s.", attr, friendly(v))
		return Check{}
	}
	src := trimmed(v.AsString())
	if src == "" {
		d.l.Errorf(bc.Rng(attr), "Empty "+attr, "%s is a condition (CEL) over the environment after the run, such as \"state.balance < initial.balance\".", attr)
	}
	return Check{Source: src, Range: a.Expr.Range()}
}

// groundTruth decodes a ground_truth block: its calls in order. roles
// says whether a call may name the role that makes it (a user task's).
func (d *decoder) groundTruth(b *hcl.Block, roles bool) []gtCall {
	var raw rawGroundTruth
	hcldiag.Decode(d.l, b, d.ctx, &raw)
	var out []gtCall
	if raw.Body == nil {
		return nil
	}
	for _, cb := range d.nested(raw.Body, groundTruthBlocks, "A ground_truth block") {
		var rc rawCall
		cc := hcldiag.Decode(d.l, cb, d.ctx, &rc)
		c := gtCall{call: GroundTruthCall{Tool: cc.Name, Role: deref(rc.Role, "")}, bc: cc, args: map[string]any{}}
		if cc.Has("role") && !roles {
			d.l.Errorf(cc.Rng("role"), "Role in an injection's ground truth", "An injection's calls are made by whichever agent the payload reaches; leave role out.")
		}
		if cc.Has("args") {
			v, diags := rc.Args.Value(d.ctx)
			d.l.Add(diags)
			if diags.HasErrors() {
				continue
			}
			if v.IsNull() || !v.IsWhollyKnown() || !(v.Type().IsObjectType() || v.Type().IsMapType()) {
				d.l.Errorf(cc.Rng("args"), "Invalid args", "args is an object of the call's arguments, { name = value, … }; this is %s.", friendly(v))
				continue
			}
			js, err := ctyjson.Marshal(v, v.Type())
			if err == nil {
				var decoded any
				if decoded, err = world.Decode(js); err == nil {
					c.args, _ = decoded.(map[string]any)
				}
			}
			if err != nil {
				d.l.Errorf(cc.Rng("args"), "Invalid args", "The arguments cannot be written as JSON: %v.", err)
				continue
			}
		}
		enc, _ := world.Encode(c.args)
		c.call.Args = json.RawMessage(enc)
		out = append(out, c)
	}
	return out
}
