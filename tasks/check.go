package tasks

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/hashicorp/hcl/v2"

	"github.com/killchain/killchain/internal/hcldiag"
	"github.com/killchain/killchain/internal/tools"
	"github.com/killchain/killchain/internal/vocab"
)

var (
	emailRE    = regexp.MustCompile(`^[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}$`)
	anyEmailRE = regexp.MustCompile(`[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}`)
	toolNameRE = regexp.MustCompile(`^[a-z][a-z0-9_]*$`)
)

// check reports what makes a decoded task unable to run, or not measure
// what it claims to, each problem at the range it concerns.
func (d *decoder) check(t *Task) {
	d.checkStateless(t)
	d.checkRoles(t)
	d.checkTools(t)
	d.checkMCP(t)
	d.checkPlacements(t)
	if t.Reward != nil {
		d.checkWorkspace(t)
		return
	}
	d.checkGoals(t)
	d.checkPayloadTools(t)
}

func (d *decoder) checkRoles(t *Task) {
	want := 1
	if t.Mode == vocab.MemoryRelay || t.Mode == vocab.DelegationRelay {
		want = 2
	}
	if t.Mode == vocab.Pipeline {
		return // checkStateless reports it
	}
	if len(t.Roles) != want && slices.Contains(Modes, string(t.Mode)) {
		d.l.Errorf(d.taskBlock.Label(), "Wrong number of roles",
			"A %s task needs %s; task %q has %d role block(s).", t.Mode, roleWord(want), t.Name, len(t.Roles))
		return
	}
	d.checkRoleTools(t)
	wire := func(pos int, tool, why string) {
		if !slices.Contains(t.Roles[pos].Tools, tool) {
			d.l.Errorf(d.roles[pos].Rng("tools"), "Relay not wired", "In a %s task the %s role must be offered %s: %s.", t.Mode, []string{"first", "second"}[pos], tool, why)
		}
	}
	switch t.Mode {
	case vocab.MemoryRelay:
		wire(0, tools.WriteMemory, "it hands on through memory")
		wire(1, tools.ReadMemory, "it reads what the first wrote")
	case vocab.DelegationRelay:
		wire(0, tools.Delegate, "its message becomes the second role's prompt")
	}
}

// checkRoleTools checks each role: the tools it is offered exist and are
// within its level, no payload in its prompts, a hand-off only where one
// is filled.
func (d *decoder) checkRoleTools(t *Task) {
	for i, r := range t.Roles {
		bc := d.roles[i]
		if len(r.Tools) == 0 && bc.OK("tools") {
			d.l.Errorf(bc.Rng("tools"), "Role without tools", "Role %q is offered no tool, so it can neither read its input nor act.", r.Name)
		}
		seen := map[string]bool{}
		for j, name := range r.Tools {
			if seen[name] {
				d.l.Errorf(bc.Elem("tools", j), "Duplicate tool", "Role %q lists tool %q twice.", r.Name, name)
				continue
			}
			seen[name] = true
			spec, ok := t.Spec(name)
			if !ok {
				d.l.Errorf(bc.Elem("tools", j), "Unknown tool", "%q is neither a built-in tool nor a tool of task %q%s; %s.", name, t.Name, envOf(t), knownTools(t, name))
				continue
			}
			if r.Level > 0 && spec.Level > r.Level {
				d.l.Errorf(bc.Elem("tools", j), "Tool above the role's level",
					"Tool %q needs the %s level; role %q is granted %s, so every call of it would be refused.", name, spec.Level, r.Name, r.Level)
			}
		}
		for _, f := range []struct{ attr, text string }{{"system", r.System}, {"prompt", r.Prompt}} {
			if placeholderRE.MatchString(f.text) {
				d.l.Errorf(bc.Rng(f.attr), "Payload placeholder in a role", "A payload goes into what the agents read (pages, notes, records, documents, clips, tool results and descriptions), never into a role's %s.", f.attr)
			}
		}
		handoff := strings.Contains(r.Prompt, HandoffPlaceholder)
		switch {
		case t.Mode == vocab.DelegationRelay && i == 1 && !handoff:
			d.l.Errorf(bc.Rng("prompt"), "Missing hand-off", "The reader of a delegation relay gets the writer's message at %s in its prompt; role %q's prompt has none.", HandoffPlaceholder, r.Name)
		case handoff && (t.Mode != vocab.DelegationRelay || i == 0):
			d.l.Errorf(bc.Rng("prompt"), "Hand-off outside a delegation reader", "%s is filled only in the second role of a delegation_relay task.", HandoffPlaceholder)
		}
	}
}

// envOf names a task's environment for messages: " or of its
// environment "bank"".
func envOf(t *Task) string {
	if t.Environment == nil {
		return ""
	}
	return fmt.Sprintf(" or of its environment %q", t.Environment.Name)
}

func roleWord(n int) string {
	if n == 1 {
		return "one role block"
	}
	return "two role blocks (writer, then reader)"
}

// knownTools suggests the closest tool to name and lists them all.
func knownTools(t *Task, name string) string {
	names := append([]string(nil), tools.Names()...)
	for _, tl := range t.Tools {
		names = append(names, tl.Name)
	}
	if t.Environment != nil {
		for _, tl := range t.Environment.Tools {
			names = append(names, tl.Name)
		}
	}
	slices.Sort(names)
	hint := ""
	if best := hcldiag.Closest(name, names); best != "" {
		hint = fmt.Sprintf("did you mean %q? ", best)
	}
	return hint + "known tools: " + strings.Join(names, ", ")
}

func (d *decoder) checkTools(t *Task) {
	for i, tl := range t.Tools {
		bc := d.tools[i]
		switch {
		case !toolNameRE.MatchString(tl.Name):
			d.l.Errorf(bc.Label(), "Invalid tool name", "A tool name is lower-case letters, digits and '_', starting with a letter; %q is not.", tl.Name)
		case isBuiltinTool(tl.Name):
			d.l.Errorf(bc.Label(), "Built-in tool redefined", "%q is a built-in tool; give the task's own tool another name.", tl.Name)
		}
		if tl.Description == "" && bc.OK("description") {
			d.l.Errorf(bc.Rng("description"), "Empty description", "A model chooses a tool by its description; tool %q has none.", tl.Name)
		}
		if !tl.Outbound && len(tl.Results) == 0 {
			d.l.Errorf(bc.Header(), "Tool without results", "Tool %q is not outbound, so a call of it only returns text; give it a result block.", tl.Name)
		}
		if !t.Offered(tl.Name) {
			d.l.Warnf(bc.Label(), "Unused tool", "No role of task %q is offered tool %q.", t.Name, tl.Name)
		}
	}
}

func isBuiltinTool(name string) bool {
	_, ok := tools.Lookup(name)
	return ok
}

func (d *decoder) checkPlacements(t *Task) {
	names := t.PlacementNames()
	filled := map[string]bool{}
	for i, v := range t.Variants {
		if i >= len(d.variants) {
			break // the default variant of a workspace task
		}
		bc := d.variants[i]
		if t.Reward != nil {
			if v.Payload != "" || len(v.Payloads) > 0 {
				d.l.Errorf(bc.Header(), "Payload in a reward-hack task", "A reward-hack task plants no payload; its canary is {{CANARY}} in a workspace file.")
			}
			continue
		}
		for j, p := range v.Placements {
			if !slices.Contains(names, p) {
				d.l.Errorf(bc.Elem("placements", j), "Unknown placement", "No text of task %q holds %s%s.", t.Name, placeholderOf(p), placementList(names))
			}
		}
		for p := range v.Payloads {
			if !slices.Contains(names, p) {
				d.l.Errorf(bc.Key("payloads", p), "Unknown placement", "No text of task %q holds %s%s.", t.Name, placeholderOf(p), placementList(names))
			} else if !v.Fills(p) {
				d.l.Errorf(bc.Key("payloads", p), "Payload for a placement the variant does not fill", "Variant %q lists placements %v, which leave out %q.", v.Name, v.Placements, p)
			}
		}
		fillsAny := false
		for _, n := range names {
			w, ok := v.Wording(n)
			if !ok {
				continue
			}
			fillsAny, filled[n] = true, true
			rng := bc.Rng("payload")
			if _, own := v.Payloads[n]; own {
				rng = bc.Key("payloads", n)
			}
			if !strings.Contains(w, CanaryPlaceholder) && !t.AttackGoalOnly {
				d.l.Errorf(rng, "Payload without canary", "The wording of variant %q at %s holds no %s, so no stage can be tracked; add it, or set attack_goal_only = true on the task if it measures only the attack goal.", v.Name, placeholderOf(n), CanaryPlaceholder)
			}
			if strings.Contains(w, AttackerPlaceholder) && t.Attack.Address == "" {
				d.l.Errorf(rng, "Attacker address missing", "Variant %q writes %s, but the task's attack block gives no address.", v.Name, AttackerPlaceholder)
			}
		}
		if !fillsAny {
			d.l.Errorf(bc.Label(), "Variant with nowhere to go", "Variant %q fills no placement: put %s (or {{PAYLOAD:name}}) in a page, note, record, document, clip or tool, and give the variant a payload for it%s.", v.Name, PayloadPlaceholder, placementList(names))
		}
	}
	for _, p := range t.Placements() {
		if !filled[p.Name] && t.Reward == nil && len(t.Variants) > 0 {
			d.l.Errorf(d.itemRange(p.Where), "Placeholder no variant fills", "%s at %s is filled by no variant of task %q, so it is always empty.", placeholderOf(p.Name), p.Where, t.Name)
			filled[p.Name] = true // once per name
		}
	}
	if t.Reward == nil {
		switch {
		case len(t.Variants) == 0:
			d.l.Errorf(d.taskBlock.Label(), "No variants", "An injection task needs at least one variant block: what its payload says.")
		case len(names) == 0:
			d.l.Errorf(d.taskBlock.Label(), "Nowhere to place a payload", "Task %q holds no %s in any page, note, record, document, clip or tool.", t.Name, PayloadPlaceholder)
		}
	}
}

// itemRange is the label range of the item a placement's Where names.
func (d *decoder) itemRange(where string) *hcl.Range {
	kind, rest, _ := strings.Cut(where, " ")
	if kind == "workspace" {
		return d.ws.Header()
	}
	name := strings.Trim(strings.SplitN(rest, `" `, 2)[0], `"`)
	if r, ok := d.items[kind+" "+name]; ok {
		return r
	}
	return d.taskBlock.Label()
}

func placeholderOf(name string) string {
	if name == DefaultPlacement {
		return PayloadPlaceholder
	}
	return "{{PAYLOAD:" + name + "}}"
}

func placementList(names []string) string {
	if len(names) == 0 {
		return ""
	}
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = placeholderOf(n)
	}
	return " (its placements: " + strings.Join(q, ", ") + ")"
}

func (d *decoder) checkGoals(t *Task) {
	g, a := d.goal, d.attack
	switch {
	case g == nil:
		d.l.Errorf(d.taskBlock.Label(), "Missing goal", "An injection task needs a goal block: the recipient of the legitimate report and its key facts.")
	case t.Goal.Recipient == "":
		d.l.Errorf(g.Header(), "Missing recipient", "The goal needs recipient: the address the legitimate report goes to.")
	case !emailRE.MatchString(t.Goal.Recipient):
		d.l.Errorf(g.Rng("recipient"), "Invalid address", "%q is not an e-mail address.", t.Goal.Recipient)
	case !t.Offered(tools.SendReport):
		d.l.Errorf(g.Rng("recipient"), "Goal address nobody can reach", "No role of task %q is offered send_report, so no report can reach %s.", t.Name, t.Goal.Recipient)
	case !d.named(t, t.Goal.Recipient):
		d.l.Errorf(g.Rng("recipient"), "Goal address nobody can reach", "No role prompt names %s, so no agent knows to send its report there.", t.Goal.Recipient)
	}
	if g != nil {
		texts := strings.ToLower(t.cleanText())
		for i, f := range t.Goal.KeyFacts {
			switch {
			case f == "":
				d.l.Errorf(g.Elem("key_facts", i), "Empty key fact", "A key fact is a short exact string of the legitimate content.")
			case !strings.Contains(texts, strings.ToLower(f)):
				d.l.Warnf(g.Elem("key_facts", i), "Key fact not in the content", "%q appears in none of the task's pages, notes, records, documents, clips or tool results, so no report can hold it.", f)
			}
		}
	}
	if a == nil {
		return
	}
	if addr := t.Attack.Address; addr != "" {
		reach := t.Offered(tools.SendReport)
		for _, tl := range t.Tools {
			reach = reach || tl.Outbound && t.Offered(tl.Name)
		}
		switch {
		case !emailRE.MatchString(addr):
			d.l.Errorf(a.Rng("address"), "Invalid address", "%q is not an e-mail address.", addr)
		case strings.EqualFold(addr, t.Goal.Recipient):
			d.l.Errorf(a.Rng("address"), "Attacker address is the recipient", "The attacker's address must differ from the legitimate recipient, or the two goals cannot be told apart.")
		case !reach:
			d.l.Errorf(a.Rng("address"), "Goal address nobody can reach", "No role of task %q is offered send_report or an outbound tool of the task, so nothing can reach %s.", t.Name, addr)
		case d.named(t, addr):
			d.l.Warnf(a.Rng("address"), "Attacker address in a prompt", "A role prompt names the attacker's address %s; the attack should be the payload's alone.", addr)
		}
	}
	for i, name := range t.Attack.Tools {
		spec, ok := t.Spec(name)
		switch {
		case !ok:
			d.l.Errorf(a.Elem("tools", i), "Unknown tool", "%q is neither a built-in tool nor a tool block of task %q; %s.", name, t.Name, knownTools(t, name))
		case !spec.Outbound:
			d.l.Errorf(a.Elem("tools", i), "Attack tool is not outbound", "Only an outbound tool's call is an effect the verifier can see; %q is not outbound.", name)
		case !t.Offered(name):
			d.l.Errorf(a.Elem("tools", i), "Goal nobody can reach", "No role of task %q is offered %q.", t.Name, name)
		}
	}
	for i, id := range t.Attack.ProtectedRecords {
		if !slices.ContainsFunc(t.Records, func(r Record) bool { return r.ID == id }) {
			d.l.Errorf(a.Elem("protected_records", i), "Unknown record", "Task %q has no record %q to protect.", t.Name, id)
		}
	}
}

// named reports whether some role prompt holds addr.
func (d *decoder) named(t *Task, addr string) bool {
	for _, r := range t.Roles {
		for _, e := range anyEmailRE.FindAllString(r.Prompt, -1) {
			if strings.EqualFold(strings.TrimRight(e, "."), addr) {
				return true
			}
		}
	}
	return false
}

// cleanText is every legitimate text of the task, placeholders removed.
func (t *Task) cleanText() string {
	var parts []string
	for _, tx := range t.texts() {
		parts = append(parts, fill(tx.value, func(string) string { return "" }))
	}
	for _, dc := range t.Documents {
		parts = append(parts, dc.Title, dc.Subject, dc.Keywords)
	}
	for _, r := range t.Records {
		parts = append(parts, r.Title)
	}
	return strings.Join(parts, "\n")
}

func (d *decoder) checkPayloadTools(t *Task) {
	bc := d.taskBlock
	if len(t.PayloadTools) == 0 {
		d.l.Errorf(bc.Rng("payload_tools"), "No payload tool", "No tool of task %q reads its payload to an agent; set payload_tools.", t.Name)
		return
	}
	if len(t.Roles) == 0 {
		return
	}
	first := t.Roles[0]
	offered := false
	for i, name := range t.PayloadTools {
		if _, ok := t.Spec(name); !ok {
			d.l.Errorf(bc.Elem("payload_tools", i), "Unknown tool", "%q is neither a built-in tool nor a tool block of task %q; %s.", name, t.Name, knownTools(t, name))
			continue
		}
		offered = offered || slices.Contains(first.Tools, name)
	}
	if !offered {
		d.l.Errorf(bc.Rng("payload_tools"), "Payload tool not offered", "The first role %q is offered none of the payload tools %v, so every run would count as no tool call; place the payload where the first role reads, or set payload_tools to the tools it calls to read it.", first.Name, t.PayloadTools)
	}
}

func (d *decoder) checkWorkspace(t *Task) {
	rh, bc := t.Reward, d.ws
	if len(rh.Files) == 0 {
		d.l.Errorf(bc.Header(), "Empty workspace", "A workspace needs files: a dir beside the task file, or file blocks.")
	}
	canary := false
	for _, f := range rh.Files {
		canary = canary || strings.Contains(f.Text, CanaryPlaceholder)
	}
	if !canary {
		d.l.Errorf(bc.Header(), "Workspace without canary", "Every reward-hack run carries a canary: put %s in one test case's input and expected output.", CanaryPlaceholder)
	}
	if len(rh.Solution) == 0 && bc.OK("solution") {
		d.l.Errorf(bc.Rng("solution"), "No solution path", "solution lists the workspace files the agent is asked to write.")
	}
	for i, s := range rh.Solution {
		if _, prot := rh.RoleOf(s); prot {
			d.l.Errorf(bc.Elem("solution", i), "Protected solution", "Solution file %q matches a protected pattern, so writing it would count as tampering.", s)
		}
	}
	if rh.HeldOut == nil {
		d.l.Errorf(bc.Header(), "No held-out cases", "A workspace needs a held_out block: the pristine verifier decides a true pass on cases the agent never saw (a dir of NAME.in and NAME.out beside the task file, or a generator command).")
	}
	if len(rh.Protected) == 0 {
		d.l.Errorf(bc.Header(), "Nothing protected", "A workspace names the files its test command reads or runs with protect blocks; tampering is a change to one of them.")
	}
	for _, r := range t.Roles {
		if !slices.Contains(r.Tools, tools.RunShell) {
			d.l.Warnf(d.roles[0].Rng("tools"), "No shell", "Role %q is not offered run_shell, so it cannot run the tests.", r.Name)
		}
	}
}
