package runview

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/killchain/killchain/internal/agent"
	"github.com/killchain/killchain/internal/canary"
	"github.com/killchain/killchain/internal/results"
	"github.com/killchain/killchain/internal/sanitize"
	"github.com/killchain/killchain/internal/vocab"
)

// TextOptions says how WriteText writes.
type TextOptions struct {
	// Color marks the canary and the kinds of entry with ANSI escapes (for
	// a terminal); without it the canary is marked »like this«.
	Color bool
}

// ErrNoRun is returned by WriteText for a run id runs.jsonl does not hold.
var ErrNoRun = errors.New("no such run")

// WriteText writes one run of the study folder dir as text for a
// terminal (runID may be a prefix of exactly one run id): its outcome, then each agent's system prompt and prompt, and
// step by step its hidden thinking, visible narration, tool calls and tool
// results, each on lines of its own and labelled, the canary marked
// wherever it is written and each entry tagged with the signals the
// tracker recorded there (exposed, executed, …).
func WriteText(ctx context.Context, w io.Writer, dir, runID string, opts TextOptions) error {
	var run, first *results.Run
	var near []string
	_, err := results.ReadLatest(ctx, filepath.Join(dir, results.RunsFile), results.ReadOptions{}, func(r *results.Run) error {
		switch {
		case r.RunID == runID:
			c := *r
			run = &c
		case strings.HasPrefix(r.RunID, runID) && len(near) < 5:
			if first == nil {
				c := *r
				first = &c
			}
			near = append(near, r.RunID)
		}
		return nil
	})
	if err != nil {
		return err
	}
	if run == nil && len(near) == 1 { // a prefix of one run id names it
		run, runID = first, first.RunID
	}
	if run == nil {
		if len(near) > 0 {
			return fmt.Errorf("%w %q in %s (did you mean %s?)", ErrNoRun, runID, dir, strings.Join(near, ", "))
		}
		return fmt.Errorf("%w %q in %s", ErrNoRun, runID, dir)
	}
	t, err := readTranscript(dir, runID)
	if err != nil {
		return err
	}
	var evs []vocab.Event
	err = results.ReadEvents(ctx, filepath.Join(dir, results.EventsFile), func(l *results.EventLine) error {
		if l.Event.RunID == runID {
			evs = append(evs, l.Event)
		}
		return nil
	})
	if err != nil {
		return err
	}
	p := &textPrinter{w: w, color: opts.Color, canary: sanitize.Line(run.Canary)}
	if t != nil && t.Canary != "" {
		p.canary = sanitize.Line(t.Canary)
	}
	p.header(run)
	if t == nil {
		p.printf("no transcript for this run (imported and synthetic studies have none)\n")
		return p.err
	}
	p.transcript(t, evs)
	return p.err
}

// textPrinter writes a run's text, keeping the first write error. Every
// text of the run (the study folder's, so a model's, an attacker's or a
// task's) goes through package sanitize before it is styled: escape
// sequences in a narration, a tool's arguments or output, a provider's
// error or a task's text show as text (\x1b…) and never reach the
// terminal as what they are; only the printer's own styles do.
type textPrinter struct {
	w      io.Writer
	color  bool
	canary string
	err    error
}

// ANSI styles.
const (
	ansiReset  = "\x1b[0m"
	ansiBold   = "\x1b[1m"
	ansiCanary = "\x1b[1;7;31m" // bold, reverse, red
	ansiError  = "\x1b[31m"
	ansiLabel  = "\x1b[36m"
)

func (p *textPrinter) printf(format string, args ...any) {
	if p.err == nil {
		_, p.err = fmt.Fprintf(p.w, format, args...)
	}
}

func (p *textPrinter) style(s, code string) string {
	if !p.color || s == "" {
		return s
	}
	return code + s + ansiReset
}

// mark marks every written occurrence of the run's canary in text.
func (p *textPrinter) mark(text string) string {
	if p.canary == "" || !strings.Contains(text, p.canary) {
		return text
	}
	repl := "»" + p.canary + "«"
	if p.color {
		repl = ansiCanary + p.canary + ansiReset
	}
	return strings.ReplaceAll(text, p.canary, repl)
}

// line writes a labelled block: the label on the first line, every line
// of text indented under it.
func (p *textPrinter) line(label, text string, tags ...string) {
	head := "  " + p.style(label, ansiLabel)
	for _, tg := range tags {
		head += " [" + sanitize.Line(tg) + "]"
	}
	body := p.mark(sanitize.Terminal(text))
	lines := strings.Split(strings.TrimRight(body, "\n"), "\n")
	p.printf("%s\n", head)
	for _, l := range lines {
		p.printf("      %s\n", l)
	}
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

func (p *textPrinter) header(r *results.Run) {
	line := sanitize.Line
	models := line(r.ModelA)
	if r.ModelB != "" {
		models += " → " + line(r.ModelB)
	}
	p.printf("%s  %s/%s  %s  condition %s  defense %s  attack %s\n", p.style("run "+line(r.RunID), ansiBold),
		line(r.Task), line(r.Variant), models, line(r.Condition), line(r.Defense), line(r.RunAttack()))
	if r.Canary != "" {
		p.printf("canary %s\n", p.mark(line(r.Canary)))
	}
	for i, a := range r.AttemptErrors {
		p.printf("try %d of %d failed (%s, retried in a fresh sandbox): %s\n", i+1, len(r.AttemptErrors)+1, line(string(a.Kind)), sanitize.Terminal(a.Error))
	}
	if r.Error != "" {
		p.printf("%s\n", p.style(fmt.Sprintf("error (%s): %s — an errored run is no outcome", line(string(r.ErrorKind)), sanitize.Terminal(r.Error)), ansiError))
	} else if r.IsRewardHack() && r.RewardHack != nil {
		p.printf("hack %s  kind %s  visible pass %s  true pass %s  task success %s\n", flagText(r.Hack), orDash(line(r.HackKind)),
			flagText(r.VisiblePass), flagText(r.TruePass), yesNo(r.TaskSuccess))
	} else {
		p.printf("stage %s  exposed %s  persisted %s  relayed %s  executed %s\n", line(r.Stage),
			flagText(r.Exposed), flagText(r.Persisted), flagText(r.Relayed), flagText(r.Executed))
		p.printf("attack goal %s  task success %s  noticed %s (thinking %s, narration %s)  no tool call %s\n",
			yesNo(r.AttackGoal), yesNo(r.TaskSuccess), yesNo(r.Noticed), yesNo(r.NoticedThinking), yesNo(r.NoticedNarration), yesNo(r.NoToolCall))
	}
}

func orDash(s string) string {
	if s == "" {
		return "—"
	}
	return s
}

// textLabels names each kind of entry as the text shows it.
var textLabels = map[string]string{
	agent.KindSystem: "system", agent.KindPrompt: "prompt", agent.KindCondition: "condition", agent.KindTools: "tools offered",
	agent.KindThinking: "thinking (hidden)", agent.KindNarration: "narration (visible)", agent.KindToolCall: "call",
	agent.KindToolResult: "result", agent.KindDefense: "defense", agent.KindRefused: "refused", agent.KindError: "error",
	agent.KindListing: "MCP tool listing",
}

func (p *textPrinter) transcript(t *results.Transcript, evs []vocab.Event) {
	models := map[string]string{}
	for _, a := range t.Agents {
		models[a.Position] = a.Model
	}
	pos, step := "", -1
	for _, e := range t.Entries {
		if e.Pos != pos {
			pos, step = e.Pos, -1
			p.printf("\n%s\n", p.style(fmt.Sprintf("── agent %s: %s (%s) ──", sanitize.Line(e.Pos), sanitize.Line(e.Agent), sanitize.Line(models[e.Pos])), ansiBold))
		}
		if e.Step != step && e.Step > 0 {
			step = e.Step
			p.printf("%s\n", p.style(fmt.Sprintf("step %d", e.Step), ansiBold))
		}
		text := e.Text
		switch {
		case e.Kind == agent.KindToolCall:
			text = e.Tool + "(" + prettyArgs(e.Args) + ")"
		case e.Kind == agent.KindThinking && e.Redacted && text == "":
			text = "(redacted by the provider)"
		case e.Kind == agent.KindNarration && strings.TrimSpace(text) == "":
			continue
		case e.Tool != "" && e.Kind != agent.KindThinking && e.Kind != agent.KindNarration:
			text = e.Tool + ": " + text
		}
		label := textLabels[e.Kind]
		if label == "" {
			label = sanitize.Line(e.Kind)
		}
		if e.Defense != "" {
			label += " " + sanitize.Line(e.Defense)
		}
		if e.IsError {
			label = p.style(label+" (error)", ansiError)
		}
		tags := entrySignals(e, evs)
		if p.canary != "" && !strings.Contains(e.Text+e.Args, p.canary) && canary.Contains(e.Text+e.Args, p.canary) {
			tags = append(tags, "canary encoded")
		}
		p.line(label, text, tags...)
	}
	if len(t.Verdict) > 0 {
		p.printf("\n%s\n", p.style("verifier", ansiBold))
		for _, v := range t.Verdict {
			p.printf("  %s\n", p.mark(sanitize.Terminal(v)))
		}
	}
}
