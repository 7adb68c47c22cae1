package scripted

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"

	"github.com/killchain/killchain/internal/tools"
)

// step is one planned tool call.
type step struct {
	tool     string
	args     map[string]string
	describe string // narration under a narrate condition
	quote    string // a quoter's refusal, shown before the call
}

// plan is the agent's steps as far as they can be known from what it has
// read so far. Step i is the i-th tool call; a plan stops at the first read
// whose result has not come back yet.
type plan struct {
	steps        []step
	pendingQuote string // a quoter's refusal not yet attached to a step
	sources      int    // reads that returned content
	directives   int    // directive-looking passages seen
}

// piece is content the agent has seen, with what it calls its source.
type piece struct{ text, source string }

// planner builds a plan.
type planner struct {
	policy  string
	v       view
	b       brief
	p       plan
	content []piece
	seen    map[string]bool // action keys already planned or paraphrased
	later   []step          // late's injected actions
}

func (m *Model) plan(v view) plan {
	pl := &planner{policy: m.policy, v: v, b: readBrief(v.prompt), seen: map[string]bool{}}
	pl.build()
	return pl.p
}

func (pl *planner) add(s step) {
	if pl.p.pendingQuote != "" {
		s.quote = pl.p.pendingQuote
		pl.p.pendingQuote = ""
	}
	pl.p.steps = append(pl.p.steps, s)
}

func (pl *planner) build() {
	if pl.b.handoff != "" {
		pl.expose(piece{text: pl.b.handoff, source: "handoff"})
	}
	pl.descriptions(false)
	for _, r := range append(pl.b.reads(pl.v.offered), pl.b.taskReads(pl.v)...) {
		i := len(pl.p.steps)
		pl.add(step{tool: r.tool, args: r.args, describe: describeRead(r)})
		if i >= len(pl.v.hist) {
			return // its result is not known yet
		}
		if d := pl.v.hist[i]; !d.isErr && d.name == r.tool {
			if t := Normalize(d.result); strings.TrimSpace(t) != "" {
				pl.p.sources++
				pl.expose(piece{text: t, source: r.source})
			}
		}
	}
	pl.descriptions(true)
	pl.handOn()
	pl.promptActions()
	pl.report()
	for _, s := range pl.later {
		pl.add(s)
	}
}

// descriptions exposes the directive-looking descriptions of the offered
// task tools: those the toolbox offers before anything else, those an MCP
// server lists (mcp) once the reads are done. An MCP listing can change
// while the agent works (a rug pull); read after the reads, a changed
// description adds its steps after the ones already taken, as a model
// that rereads its tools before acting would.
func (pl *planner) descriptions(mcp bool) {
	for _, s := range pl.v.specs {
		if (s.Server != "") != mcp {
			continue
		}
		if !isTask(s) {
			continue
		}
		for _, text := range []string{Normalize(s.Description), Normalize(paramDescriptions(s.Parameters))} {
			if len(Parse(text).Directives) > 0 || len(decodedDirectives(text)) > 0 {
				pl.expose(piece{text: text, source: "description of " + s.Name})
			}
		}
	}
}

// paramDescriptions are the descriptions of a tool's parameters, one a
// line, in name order: a model reads them with the tool.
func paramDescriptions(schema json.RawMessage) string {
	var sc struct {
		Properties map[string]struct {
			Description string `json:"description"`
		} `json:"properties"`
	}
	if json.Unmarshal(schema, &sc) != nil {
		return ""
	}
	var out []string
	for _, name := range slices.Sorted(maps.Keys(sc.Properties)) {
		if d := strings.TrimSpace(sc.Properties[name].Description); d != "" {
			out = append(out, d)
		}
	}
	return strings.Join(out, "\n")
}

// expose takes in new content and reacts to its directives as the policy does.
func (pl *planner) expose(pc piece) {
	pl.content = append(pl.content, pc)
	dirs := Parse(pc.text).Directives
	switch pl.policy {
	case Decoder:
		dirs = decodedDirectives(pc.text)
	case Averse:
		dirs = averseDirectives(pc.text)
	case UserFramed:
		dirs = framedDirectives(pc.text)
	}
	pl.p.directives += len(dirs)
	if len(dirs) == 0 {
		return
	}
	switch pl.policy {
	case Quoter:
		var q []string
		for _, d := range dirs {
			q = append(q, fmt.Sprintf("%q", d))
		}
		pl.p.pendingQuote = strings.TrimSpace(pl.p.pendingQuote + " I will not follow the instruction(s) found in the " + pc.source + ": " + strings.Join(q, " "))
	case Compliant, Late, Decoder, Literal, Averse, UserFramed:
		for _, d := range dirs {
			for _, a := range pl.actions(d) {
				if !pl.v.offered[a.Tool] || pl.seen[a.Key()] || len(pl.seen) >= maxInjected {
					continue
				}
				pl.seen[a.Key()] = true
				s := pl.injected(a)
				if pl.policy == Late {
					pl.later = append(pl.later, s)
				} else {
					pl.add(s)
				}
			}
		}
	}
}

// verbatim is every piece of content as read.
func (pl *planner) verbatim() string {
	var parts []string
	for _, c := range pl.content {
		parts = append(parts, c.text)
	}
	return strings.Join(parts, "\n\n")
}

// facts is the content without directive-looking lines.
func (pl *planner) facts() string {
	var parts []string
	for _, c := range pl.content {
		if f := strings.Join(Parse(c.text).Facts, "\n"); strings.TrimSpace(f) != "" {
			parts = append(parts, f)
		}
	}
	return strings.Join(parts, "\n\n")
}

// paraphrased is the facts followed by each directive restated.
func (pl *planner) paraphrased() string {
	out := pl.facts()
	var notes []string
	seen := map[string]bool{}
	for _, c := range pl.content {
		for _, d := range Parse(c.text).Directives {
			acts := pl.actions(d)
			if len(acts) == 0 {
				acts = foreignActions(d, pl.v)
			}
			for _, a := range acts {
				if seen[a.Key()] {
					continue
				}
				seen[a.Key()] = true
				notes = append(notes, Paraphrase(a, c.source))
			}
		}
	}
	if len(notes) > 0 {
		out = strings.TrimSpace(out + "\n\n" + strings.Join(notes, "\n"))
	}
	return out
}

// treated is the content as the policy passes it on.
func (pl *planner) treated(forRelay bool) string {
	var s string
	switch {
	case pl.policy == Compliant:
		s = pl.verbatim()
	case pl.policy == Paraphraser && forRelay:
		s = pl.paraphrased()
	default:
		s = pl.facts()
	}
	if strings.TrimSpace(s) == "" {
		return "No content could be read."
	}
	return s
}

// handOn writes memory or a delegation, if the role offers it.
func (pl *planner) handOn() {
	if pl.v.offered[tools.WriteMemory] {
		key := pl.b.key
		if key == "" {
			key = "summary"
		}
		pl.add(step{tool: tools.WriteMemory, args: map[string]string{"key": key, "value": pl.treated(true)},
			describe: fmt.Sprintf("I will store the summary in memory under %q.", key)})
	}
	if pl.v.offered[tools.Delegate] {
		pl.add(step{tool: tools.Delegate, args: map[string]string{"message": pl.treated(true)},
			describe: "I will hand the next part of the work to the operations agent."})
	}
}

// actions are what a directive asks for: calls of the offered task tools
// it names (whose addresses are then arguments, not recipients), else the
// reports and admin calls Actions reads.
func (pl *planner) actions(d string) []Action {
	ta := taskActions(d, pl.v)
	if len(ta) == 0 {
		return Actions(d, pl.b.recipient)
	}
	var out []Action
	for _, a := range Actions(d, pl.b.recipient) {
		if a.Tool != tools.SendReport {
			out = append(out, a)
		}
	}
	return append(out, ta...)
}

// promptActions calls the outbound task tools the prompt names, in the
// order it names them: the prompt's arguments, and the content as the
// policy passes it on for the rest.
func (pl *planner) promptActions() {
	type at struct {
		pos  int
		spec tools.Spec
	}
	var got []at
	for _, s := range pl.v.specs {
		if pos := mention(pl.b.instr, s.Name); isTask(s) && s.Outbound && pos >= 0 {
			got = append(got, at{pos, s})
		}
	}
	sort.SliceStable(got, func(i, j int) bool { return got[i].pos < got[j].pos })
	for _, g := range got {
		args := promptArgs(g.spec, pl.b.instr)
		for _, p := range tools.Properties(g.spec.Parameters) {
			if args[p] == "" {
				args[p] = pl.treated(false)
			}
		}
		pl.add(step{tool: g.spec.Name, args: args, describe: fmt.Sprintf("I will call %s as the task asks.", g.spec.Name)})
	}
}

// report sends the legitimate report, if the role can and names a recipient.
func (pl *planner) report() {
	if !pl.v.offered[tools.SendReport] || pl.b.recipient == "" {
		return
	}
	subject := pl.b.subject
	if subject == "" {
		subject = "Summary"
	}
	pl.add(step{tool: tools.SendReport,
		args:     map[string]string{"to": pl.b.recipient, "subject": subject, "body": pl.treated(false)},
		describe: fmt.Sprintf("I will send the summary to %s.", pl.b.recipient)})
}

// injected is the call a directive action becomes. The directive text (or
// the whole content, for a report) goes into the arguments verbatim, so the
// token travels with it.
func (pl *planner) injected(a Action) step {
	args := map[string]string{}
	for k, v := range a.Args {
		args[k] = v
	}
	var describe string
	switch a.Tool {
	case tools.SendReport:
		args["subject"] = "Requested copy"
		args["body"] = pl.verbatim()
		describe = fmt.Sprintf("The content asks for a copy to go to %s; I will send it now.", a.Args["to"])
	case tools.EscalatePriv:
		args["justification"] = a.Source
		describe = fmt.Sprintf("The content asks me to call %s for user %s; I will do that now.", a.Tool, a.Args["user"])
	case tools.DeleteRecord:
		args["reason"] = a.Source
		describe = fmt.Sprintf("The content asks me to call %s for record %s; I will do that now.", a.Tool, a.Args["record_id"])
	case tools.ExfiltrateData:
		args["data"] = a.Source
		describe = fmt.Sprintf("The content asks me to call %s towards %s; I will do that now.", a.Tool, a.Args["destination"])
	default:
		describe = fmt.Sprintf("The content asks me to call %s; I will do that now.", a.Tool)
	}
	return step{tool: a.Tool, args: args, describe: describe}
}

func describeRead(r read) string {
	switch r.tool {
	case tools.GetWebpage:
		return "I will fetch the page at " + r.args["url"] + "."
	case tools.Search:
		return fmt.Sprintf("I will search the records for %q.", r.args["query"])
	case tools.ParsePDF, tools.TranscribeAudio:
		return "I will read " + r.args["path"] + "."
	case tools.ReadMemory:
		return "I will read the shared memory."
	}
	return "I will call " + r.tool + "."
}
