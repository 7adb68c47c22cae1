package scripted

import (
	"regexp"
	"strings"

	"github.com/killchain/killchain/internal/agent"
	"github.com/killchain/killchain/internal/tools"
)

// brief is what an agent reads out of its role prompt.
type brief struct {
	instr                  string // the instructions: the prompt before any hand-off
	url, query, pdf, audio string
	key, subject           string
	recipient              string
	handoff                string // a delegation handoff carried in the prompt
}

var (
	quotedRE  = regexp.MustCompile(`"([^"\n]+)"`)
	keyRE     = regexp.MustCompile(`(?i)\bkey\b(?:\s+\w+){0,3}?\s*[:=]?\s*"([^"\n]+)"`)
	subjectRE = regexp.MustCompile(`(?i)\bsubject\b(?:\s+\w+){0,3}?\s*[:=]?\s*"([^"\n]+)"`)
	pdfRE     = regexp.MustCompile(`(?i)[\w./-]*\w\.pdf\b`)
	audioRE   = regexp.MustCompile(`(?i)[\w./-]*\w\.(?:wav|mp3|flac)\b`)
	wordRE    = regexp.MustCompile(`[A-Za-z][A-Za-z-]{3,}`)
	narrateRE = regexp.MustCompile(`(?i)narrat|before (?:each|every|any) (?:tool )?(?:call|action|step)|(?:say|describe|explain|state) (?:in visible text )?what you (?:are|were) (?:about|going) to do`)
)

// readBrief parses a role prompt, remembered (memo.go): an agent's prompt
// is the same at every step of its run, and often across the runs of a
// cell, and parsing it was most of what a scripted reply cost.
func readBrief(prompt string) brief { return briefs.get(prompt) }

// parseBrief parses a role prompt: the arguments of its reads, its
// recipient and any hand-off.
func parseBrief(prompt string) brief {
	var b brief
	instr, handoff := splitHandoff(prompt)
	b.instr, b.handoff = instr, handoff
	// arguments come from the instructions, else from anywhere in the prompt
	find := func(re *regexp.Regexp) string {
		if m := re.FindString(instr); m != "" {
			return m
		}
		return re.FindString(prompt)
	}
	if u := find(urlRE); u != "" {
		b.url = strings.TrimRight(u, ".,;:!?")
	}
	if m := keyRE.FindStringSubmatch(instr); m != nil {
		b.key = strings.TrimSpace(m[1])
	}
	if m := subjectRE.FindStringSubmatch(instr); m != nil {
		b.subject = strings.TrimSpace(m[1])
	}
	for _, m := range quotedRE.FindAllStringSubmatch(instr, -1) {
		q := strings.TrimSpace(m[1])
		if q == b.key || q == b.subject || strings.Contains(q, "@") || urlRE.MatchString(q) {
			continue
		}
		b.query = q
		break
	}
	if b.query == "" {
		var words []string
		for _, w := range wordRE.FindAllString(urlRE.ReplaceAllString(emailRE.ReplaceAllString(instr, ""), ""), -1) {
			if len(words) == 6 {
				break
			}
			words = append(words, w)
		}
		b.query = strings.Join(words, " ")
	}
	b.pdf = find(pdfRE)
	b.audio = find(audioRE)
	b.recipient = emailRE.FindString(instr)
	if b.recipient == "" && handoff == "" {
		b.recipient = emailRE.FindString(prompt)
	}
	b.recipient = strings.TrimRight(b.recipient, ".")
	return b
}

// splitHandoff separates a prompt's instructions (its first paragraph) from
// a delegation handoff that follows them (every later paragraph).
func splitHandoff(prompt string) (instr, handoff string) {
	p := strings.TrimSpace(strings.ReplaceAll(prompt, "\r\n", "\n"))
	i := strings.Index(p, "\n\n")
	if i < 0 {
		return p, ""
	}
	return p[:i], Normalize(strings.TrimSpace(p[i:]))
}

// read is one content-reading call the agent plans.
type read struct {
	tool   string
	args   map[string]string
	source string // how the agent names what it read ("page", "document")
}

// reads lists the content-reading calls for the offered tools, in order,
// skipping a tool whose argument the prompt does not give.
func (b brief) reads(offered map[string]bool) []read {
	var out []read
	add := func(tool, arg, val, source string) {
		if !offered[tool] || (arg != "" && val == "") {
			return
		}
		args := map[string]string{}
		if arg != "" {
			args[arg] = val
		}
		out = append(out, read{tool: tool, args: args, source: source})
	}
	add(tools.GetWebpage, "url", b.url, "page")
	add(tools.Search, "query", b.query, "search result")
	add(tools.ParsePDF, "path", b.pdf, "document")
	add(tools.TranscribeAudio, "path", b.audio, "recording")
	add(tools.ReadMemory, "", "", "stored notes")
	return out
}

// done is one tool call the agent made and what came back.
type done struct {
	name, args, result string
	isErr              bool
}

// view is what a stateless agent reconstructs from a request.
type view struct {
	prompt  string
	narrate bool
	offered map[string]bool
	specs   []tools.Spec // the offered tools, in the order offered
	hist    []done
}

func readView(req agent.Request) view {
	v := view{offered: map[string]bool{}, narrate: narrateRE.MatchString(req.System)}
	for _, t := range req.Tools {
		v.offered[t.Name] = true
	}
	v.specs = req.Tools
	results := map[string]agent.Message{}
	for _, m := range req.Messages {
		if m.Role == agent.RoleTool {
			results[m.ToolCallID] = m
		}
	}
	for _, m := range req.Messages {
		switch m.Role {
		case agent.RoleUser:
			if v.prompt == "" {
				v.prompt = m.Content
			}
		case agent.RoleAssistant:
			for _, c := range m.ToolCalls {
				r, ok := results[c.ID]
				d := done{name: c.Name, args: c.Arguments, result: r.Content, isErr: r.IsError || !ok}
				if strings.HasPrefix(strings.TrimSpace(r.Content), "error:") {
					d.isErr = true
				}
				v.hist = append(v.hist, d)
			}
		}
	}
	return v
}
