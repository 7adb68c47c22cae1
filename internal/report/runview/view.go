// Package runview shows one run of a study folder at a time: as text for a
// terminal (WriteText, for the show command) and as a page of the HTML
// report (WritePage, runs/<run_id>.html). Both set each agent's steps out
// with its hidden thinking, visible narration, tool calls and tool results
// apart, and mark the canary with the furthest signal the tracker recorded
// there. A Picker chooses which runs of a study get a page. The report
// (internal/report) writes report.html around those pages and links them.
package runview

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"html"
	"html/template"
	"io/fs"
	"slices"
	"strings"

	"github.com/killchain/killchain/internal/agent"
	"github.com/killchain/killchain/internal/results"
	"github.com/killchain/killchain/internal/vocab"
	"github.com/killchain/killchain/sandbox"
)

// readTranscript reads transcripts/<run>.json of a study; a missing file
// returns nil and no error (imported and synthetic studies have none).
func readTranscript(dir, runID string) (*results.Transcript, error) {
	t, err := results.ReadTranscript(dir, runID)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	return t, err
}

// flagText shows a nullable stage flag; "n/a" (as the report's tables
// write it) where the stage does not apply to the run's mode.
func flagText(b *bool) string {
	switch {
	case b == nil:
		return "n/a"
	case *b:
		return "yes"
	}
	return "no"
}

// signalRank orders event signals by how far they show the canary went.
var signalRank = map[string]int{
	vocab.SigSeen: 1, vocab.SigContamination: 1, vocab.SigAttempt: 2, vocab.SigClassifierError: 2,
	vocab.SigBlockedWrite: 2, vocab.SigBlockedCall: 2,
	vocab.SigNoticed: 3, "exposed": 4, "persisted": 5, "relayed": 6, "executed": 7,
}

// kindChannels lists, per transcript entry kind, the event channels that
// describe it.
var kindChannels = map[string][]string{
	agent.KindToolResult: {string(vocab.ToolResult), string(vocab.MemoryRead)},
	agent.KindToolCall: {string(vocab.ToolCall), string(vocab.Outbound), string(vocab.WriteCommitted),
		string(vocab.WriteRequested), string(vocab.Delegation)},
	agent.KindThinking:  {string(vocab.Thinking)},
	agent.KindNarration: {string(vocab.Narration)},
	agent.KindPrompt:    {string(vocab.Prompt), string(vocab.Delegation)},
	agent.KindDefense:   {string(vocab.WriteRequested), string(vocab.ToolCall), string(vocab.ToolListing)},
	agent.KindRefused:   {string(vocab.ToolCall)},
	agent.KindTools:     {string(vocab.ToolDescription)},
	agent.KindListing:   {string(vocab.ToolListing)},
}

// entrySignals returns the signals of the events at an entry's position,
// step and tool on a channel of its kind, furthest first.
func entrySignals(e agent.Entry, evs []vocab.Event) []string {
	chans := kindChannels[e.Kind]
	var out []string
	for _, ev := range evs {
		if ev.Pos != e.Pos || ev.Step != e.Step || !slices.Contains(chans, ev.Channel) {
			continue
		}
		if e.Tool != "" && ev.Tool != "" && ev.Tool != e.Tool {
			continue
		}
		if !slices.Contains(out, ev.Signal) {
			out = append(out, ev.Signal)
		}
	}
	slices.SortFunc(out, func(a, b string) int { return signalRank[b] - signalRank[a] })
	return out
}

// highlight escapes text for HTML and wraps every occurrence of the canary
// in a mark of the given class.
func highlight(text, canary, class string) template.HTML {
	if canary == "" || !strings.Contains(text, canary) {
		return template.HTML(html.EscapeString(text))
	}
	var b strings.Builder
	for {
		i := strings.Index(text, canary)
		if i < 0 {
			break
		}
		b.WriteString(html.EscapeString(text[:i]))
		b.WriteString(`<mark class="` + html.EscapeString(class) + `">`)
		b.WriteString(html.EscapeString(canary))
		b.WriteString(`</mark>`)
		text = text[i+len(canary):]
	}
	b.WriteString(html.EscapeString(text))
	return template.HTML(b.String())
}

// cellView is one piece of a step: its text, highlighted, and its signals.
type cellView struct {
	Label   string
	Body    template.HTML
	Signals []string
	Error   bool
}

// stepView is one row of the per-run table: one agent's step, its thinking,
// narration, calls and results side by side.
type stepView struct {
	Pos, Agent string
	Step       int
	Thinking   []cellView
	Narration  []cellView
	Calls      []cellView
	Results    []cellView
}

// runView is what the template shows of one run.
type runView struct {
	Run      results.Run
	Why      string
	Agents   []results.AgentInfo
	Preamble []cellView // system, prompt and condition entries before step 1
	Steps    []stepView
	Events   []vocab.Event
	Final    template.HTML
	Verdict  []string
	Missing  bool // no transcript
}

// buildRunView lays out a run's transcript by step, with the canary marked
// by the furthest signal the events give each entry.
func buildRunView(r results.Run, why string, t *results.Transcript, evs []vocab.Event) runView {
	v := runView{Run: r, Why: why, Events: evs}
	if t == nil {
		v.Missing = true
		return v
	}
	v.Agents, v.Verdict = t.Agents, t.Verdict
	can := t.Canary
	if can == "" {
		can = r.Canary
	}
	index := make(map[string]int)
	for _, e := range t.Entries {
		sigs := entrySignals(e, evs)
		class := "seen"
		if len(sigs) > 0 {
			class = sigs[0]
		}
		text := e.Text
		if e.Kind == agent.KindToolCall {
			text = e.Tool + "(" + prettyArgs(e.Args) + ")"
		} else if e.Tool != "" && e.Kind != agent.KindThinking && e.Kind != agent.KindNarration {
			text = e.Tool + ": " + text
		}
		if e.Redacted && text == "" {
			text = "(redacted by the provider)"
		}
		cell := cellView{Label: e.Kind, Body: highlight(text, can, "c-"+class), Signals: sigs, Error: e.IsError}
		if e.Step == 0 {
			v.Preamble = append(v.Preamble, cell)
			continue
		}
		key := fmt.Sprintf("%s/%d", e.Pos, e.Step)
		i, ok := index[key]
		if !ok {
			i = len(v.Steps)
			index[key] = i
			v.Steps = append(v.Steps, stepView{Pos: e.Pos, Agent: e.Agent, Step: e.Step})
		}
		s := &v.Steps[i]
		switch e.Kind {
		case agent.KindThinking:
			s.Thinking = append(s.Thinking, cell)
		case agent.KindNarration:
			if strings.TrimSpace(e.Text) != "" {
				s.Narration = append(s.Narration, cell)
			}
		case agent.KindToolCall:
			s.Calls = append(s.Calls, cell)
		default:
			s.Results = append(s.Results, cell)
		}
	}
	if final := marshalState(t.Final); final != "" && final != marshalState(sandbox.State{}) {
		v.Final = highlight(final, can, "c-final")
	}
	return v
}

// prettyArgs shows a call's JSON arguments with their strings unescaped, so
// that a canary inside them reads as written.
func prettyArgs(args string) string {
	var m map[string]any
	if json.Unmarshal([]byte(args), &m) != nil {
		return args
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	var b bytes.Buffer
	for i, k := range keys {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(k + "=")
		if s, ok := m[k].(string); ok {
			b.WriteString(s)
		} else {
			d, _ := json.Marshal(m[k])
			b.Write(d)
		}
	}
	return b.String()
}

// marshalState is a final state as the per-run view shows it, indented.
func marshalState(st sandbox.State) string {
	data, err := json.MarshalIndent(st, "", "  ")
	if err != nil {
		return ""
	}
	return string(data)
}
