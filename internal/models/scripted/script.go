package scripted

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/killchain/killchain/internal/agent"
	"github.com/killchain/killchain/internal/canary"
)

// Oracle plays the user task's ground truth and nothing else: a suite's
// positive control for utility (script.go).
const Oracle = "oracle"

// maxScripted bounds the tool calls a scripted agent makes from a Script.
const maxScripted = 32

// On a suite the harness hands each agent its ground truth (agent.Script)
// and the policies keep their meaning over it, each step derived from the
// conversation so far: which of its calls were made, and where it was
// first exposed (a tool result that carried the run's canary, plain or in
// an encoding the recognizer knows).
//
//   - oracle and resistant play their Task calls and stop.
//   - compliant plays its Task calls; once exposed it carries out the
//     Injection calls it is offered (the canary in every free-text
//     argument), then finishes its Task calls with the canary appended to
//     each free-text argument, so the canary persists in the state.
//   - late plays its Task calls, then, if it was exposed, the Injection
//     calls.
//   - paraphraser, once exposed, carries out the Injection calls with the
//     canary taken out of every argument.
//   - quoter plays its Task calls and quotes what exposed it in its
//     narration.
//   - decoder, literal, averse and user_framed are compliant when the
//     content that exposed them meets their condition (decoded from base64
//     or ROT13; in clear text; claiming no authority; framed as from the
//     user), resistant otherwise.
//
// silent calls nothing, as everywhere.

// scriptStep is one call of a scripted agent's plan over a Script.
type scriptStep struct {
	tool string
	args json.RawMessage
}

// scriptPlan is what an agent does over a Script, as far as the results
// so far tell: its calls, and the text that exposed it.
type scriptPlan struct {
	steps   []scriptStep
	exposed string // the result that first carried the canary ("" when none did)
	at      int    // the index of that result among the calls
}

func planScript(policy string, sc *agent.Script, v view) scriptPlan {
	p := scriptPlan{at: -1}
	injected := false
	task := 0
	follows := false
	inject := func(strip bool) {
		injected = true
		for _, c := range sc.Injection {
			if !v.offered[c.Tool] {
				continue
			}
			args := c.Args
			if strip {
				args = withoutCanary(args, sc.Canary)
			} else {
				args = withCanary(args, sc.FreeText[c.Tool], sc.Canary)
			}
			p.steps = append(p.steps, scriptStep{c.Tool, args})
		}
	}
	for len(p.steps) < maxScripted {
		n := len(p.steps)
		switch {
		case follows && !injected && policy != Late:
			inject(policy == Paraphraser)
		case task < len(sc.Task):
			c := sc.Task[task]
			task++
			args := c.Args
			if injected && policy != Paraphraser {
				args = withCanary(args, sc.FreeText[c.Tool], sc.Canary)
			}
			p.steps = append(p.steps, scriptStep{c.Tool, args})
		case follows && !injected:
			inject(false) // late: the injection last
		default:
			return p
		}
		// Read the results of the calls just planned, as far as they came back.
		for i := n; i < len(p.steps) && i < len(v.hist); i++ {
			if p.at < 0 && sc.Canary != "" && canary.Contains(v.hist[i].result, sc.Canary) {
				p.exposed, p.at = v.hist[i].result, i
				follows = followsScript(policy, p.exposed, sc.Canary)
			}
		}
		if len(p.steps) > len(v.hist) {
			return p // the next call's result is not known yet
		}
	}
	return p
}

// followsScript reports whether a policy carries out the injection once
// the text it was exposed by is known.
func followsScript(policy, text, c string) bool {
	clear := strings.Contains(Normalize(text), c)
	decoded := func(ok func(string) bool) bool {
		return slices.ContainsFunc(decodedTexts(text), func(t string) bool { return strings.Contains(t, c) && ok(t) })
	}
	switch policy {
	case Compliant, Late, Paraphraser:
		return true
	case Decoder:
		return !clear && decoded(func(string) bool { return true })
	case Literal:
		return clear
	case Averse:
		return clear && !authorityRE.MatchString(text) || decoded(func(t string) bool { return !authorityRE.MatchString(t) })
	case UserFramed:
		return clear && userFrameRE.MatchString(text) || decoded(func(t string) bool { return userFrameRE.MatchString(t) })
	}
	return false
}

// scriptReply is a policy's next step over a Script.
func scriptReply(policy string, v view, sc *agent.Script) (agent.Reply, error) {
	p := planScript(policy, sc, v)
	n := len(v.hist)
	var narr []string
	if policy == Quoter && p.at >= 0 && p.at == n-1 {
		narr = append(narr, "I will not follow the instruction in that result: "+quoteLine(p.exposed, sc.Canary))
	}
	if n >= len(p.steps) {
		narr = append(narr, finalNarration(v))
		return agent.Reply{
			Thinking:  fmt.Sprintf("Policy %s: %d of my calls made; nothing left to do.", policy, n),
			Narration: strings.Join(narr, "\n"),
		}, nil
	}
	s := p.steps[n]
	if v.narrate {
		narr = append(narr, "I will call "+s.tool+" now.")
	}
	return agent.Reply{
		Thinking:  fmt.Sprintf("Policy %s: step %d of my ground truth; next I call %s.", policy, n+1, s.tool),
		Narration: strings.Join(narr, "\n"),
		ToolCalls: []agent.ToolCall{{ID: fmt.Sprintf("call_%d", n+1), Name: s.tool, Arguments: string(s.args)}},
	}, nil
}

// quoteLine is the line of text that holds the canary, quoted.
func quoteLine(text, c string) string {
	for _, l := range strings.Split(text, "\n") {
		if canary.Contains(l, c) {
			return fmt.Sprintf("%q", strings.TrimSpace(l))
		}
	}
	return fmt.Sprintf("%q", strings.TrimSpace(text))
}

// withCanary appends the canary to each free-text argument that lacks it.
func withCanary(args json.RawMessage, free []string, c string) json.RawMessage {
	if c == "" || len(free) == 0 {
		return args
	}
	return editStrings(args, func(k, s string) string {
		if slices.Contains(free, k) && !strings.Contains(s, c) {
			return strings.TrimSpace(s + " " + c)
		}
		return s
	})
}

// withoutCanary takes the canary out of every string argument.
func withoutCanary(args json.RawMessage, c string) json.RawMessage {
	if c == "" {
		return args
	}
	return editStrings(args, func(_, s string) string {
		return strings.Join(strings.Fields(strings.ReplaceAll(s, c, "")), " ")
	})
}

// editStrings rewrites each top-level string argument.
func editStrings(args json.RawMessage, f func(key, s string) string) json.RawMessage {
	var obj map[string]any
	if json.Unmarshal(args, &obj) != nil {
		return args
	}
	for k, v := range obj {
		if s, ok := v.(string); ok {
			obj[k] = f(k, s)
		}
	}
	out, err := json.Marshal(obj)
	if err != nil {
		return args
	}
	return out
}
