package scripted

import (
	"fmt"
	"maps"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/killchain/killchain/internal/canary"
	"github.com/killchain/killchain/internal/tools"
)

// Tools of a task's own (tasks.Tool) are offered beside the built-in ones.
// The agents know nothing of any task: they read each such tool's name,
// description and parameters from the request, as a model would.
//
//   - A task tool the role prompt names, and that is not outbound, is a
//     source: the agent calls it, after the built-in reads, in the order
//     the prompt names them, with each argument the prompt gives as
//     name "value" (else, for a required one, the first quoted string
//     after the tool's name).
//   - A task tool the prompt names that is outbound is part of the work:
//     the agent calls it after handing on, before its report, with the
//     prompt's arguments; any other argument gets the content as the
//     policy passes it on.
//   - A task tool's description is content from the tool's provider: a
//     description with directive-looking lines is read before anything
//     else, like a tool result.
//   - A directive that names an offered task tool asks for a call of it:
//     its arguments as the directive gives them (name "value"), the
//     directive itself for the rest.

// isTask reports whether a spec is a task's own tool, not a built-in.
func isTask(s tools.Spec) bool {
	_, builtin := tools.Lookup(s.Name)
	return !builtin
}

// mention is the offset of the first whole-word mention of a tool in text,
// or -1.
func mention(text, tool string) int {
	loc := regexp.MustCompile(`\b` + regexp.QuoteMeta(tool) + `\b`).FindStringIndex(text)
	if loc == nil {
		return -1
	}
	return loc[0]
}

// argField reads argument name from text: name "value" (or 'value') when
// the text quotes one, else name value as field reads it. canaryValued is
// set when the quoted value holds a canary: the argument is then the
// carrier of the text itself.
func argField(text, name string) (value string, canaryValued bool) {
	re := regexp.MustCompile(`(?i)\b` + regexp.QuoteMeta(name) + `\b\s*(?:[:=]|\bis\b|\bof\b)?\s*(?:"([^"\n]*)"|'([^'\n]*)')`)
	if m := re.FindStringSubmatch(text); m != nil {
		v := strings.TrimSpace(m[1] + m[2])
		if v == "" || canary.Pattern.MatchString(v) {
			return "", true
		}
		return v, false
	}
	return field(text, name), false
}

// promptArgs fills a task tool's arguments from the role's instructions:
// each one the prompt names, then each required one left from the quoted
// strings after the tool's name that no other argument took.
func promptArgs(s tools.Spec, instr string) map[string]string {
	args := map[string]string{}
	used := map[string]bool{}
	for _, p := range tools.Properties(s.Parameters) {
		if v, _ := argField(instr, p); v != "" {
			args[p], used[v] = v, true
		}
	}
	for _, p := range tools.Required(s.Parameters) {
		if args[p] != "" {
			continue
		}
		if at := mention(instr, s.Name); at >= 0 {
			for _, m := range quotedRE.FindAllStringSubmatch(instr[at:], -1) {
				if q := strings.TrimSpace(m[1]); !used[q] && !strings.Contains(q, "@") && !urlRE.MatchString(q) {
					args[p], used[q] = q, true
					break
				}
			}
		}
	}
	return args
}

// taskReads are the reads of the offered task tools the prompt names, in
// the order it names them.
func (b brief) taskReads(v view) []read {
	type at struct {
		pos int
		r   read
	}
	var got []at
	for _, s := range v.specs {
		if !isTask(s) || s.Outbound {
			continue
		}
		pos := mention(b.instr, s.Name)
		if pos < 0 {
			continue
		}
		got = append(got, at{pos, read{tool: s.Name, args: promptArgs(s, b.instr), source: "result of " + s.Name}})
	}
	sort.SliceStable(got, func(i, j int) bool { return got[i].pos < got[j].pos })
	out := make([]read, len(got))
	for i, g := range got {
		out[i] = g.r
	}
	return out
}

// taskActions are the calls of offered task tools a directive asks for.
func taskActions(directive string, v view) []Action {
	var out []Action
	for _, s := range v.specs {
		if !isTask(s) || mention(directive, s.Name) < 0 {
			continue
		}
		a := Action{Tool: s.Name, Args: map[string]string{}, Source: directive, named: map[string]bool{}}
		for _, p := range tools.Properties(s.Parameters) {
			if val, _ := argField(directive, p); val != "" {
				a.Args[p], a.named[p] = val, true
			} else {
				a.Args[p] = directive
			}
		}
		out = append(out, a)
	}
	return out
}

// toolNameRE matches a name written the way tools are named (snake_case).
var toolNameRE = regexp.MustCompile(`\b[a-z][a-z0-9]*(?:_[a-z0-9]+)+\b`)

// namedArgRE matches an argument written name "value".
var namedArgRE = regexp.MustCompile(`\b([a-z][a-z0-9_]*)\s*[:=]?\s*"([^"\n]*)"`)

// foreignActions are the calls a directive asks for of tools the agent
// does not hold and does not know: a snake_case name that is no built-in
// tool, with the arguments the directive writes name "value". A relaying
// agent can restate them for an agent that holds the tool.
func foreignActions(directive string, v view) []Action {
	var out []Action
	for _, name := range toolNameRE.FindAllString(directive, -1) {
		if _, builtin := tools.Lookup(name); builtin || v.offered[name] || slices.ContainsFunc(out, func(a Action) bool { return a.Tool == name }) {
			continue
		}
		a := Action{Tool: name, Args: map[string]string{}, Source: directive, named: map[string]bool{}}
		for _, m := range namedArgRE.FindAllStringSubmatch(directive, -1) {
			if val := strings.TrimSpace(m[2]); val != "" && !canary.Pattern.MatchString(val) && m[1] != name {
				a.Args[m[1]], a.named[m[1]] = val, true
			}
		}
		out = append(out, a)
	}
	return out
}

// taskKey identifies a task tool action by the arguments its directive
// named.
func taskKey(a Action) string {
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(a.named)) {
		parts = append(parts, k+"="+strings.ToLower(a.Args[k]))
	}
	return a.Tool + ":" + strings.Join(parts, ",")
}

// taskParaphrase restates a task tool action in the agent's words: the
// tool and the arguments the directive named, never the directive itself.
func taskParaphrase(a Action, source string) string {
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(a.named)) {
		parts = append(parts, fmt.Sprintf("%s %s", k, a.Args[k]))
	}
	with := ""
	if len(parts) > 0 {
		with = " with " + strings.Join(parts, ", ")
	}
	return canary.Pattern.ReplaceAllString(fmt.Sprintf("The %s also says assistants must call %s%s.", source, a.Tool, with), "")
}
