package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"path"
	"slices"
	"strings"

	"github.com/killchain/killchain/internal/study"
	"github.com/killchain/killchain/runner"
)

// showHelp explains plan --show.
const showHelp = `--show CELL prints, for each cell whose key is CELL or matches it as a
pattern (* stands for one part of grid/task/variant/models/condition/defense),
exactly what each agent of the cell is told: its system prompt with what the
defense and the condition add, its user prompt, every tool it is offered with
its description and parameters, and every text its tools would return, the
payload in place (the canary shown as ` + runner.ShowCanary + `). No sandbox is
opened and no model is called. plan --cells lists the cell keys.`

// writeBriefings prints the briefing of every cell of runs that pattern
// names, once per cell.
func writeBriefings(w io.Writer, s *study.Study, runs []study.Run, pattern string) error {
	var cells []string
	shown := 0
	for _, r := range runs {
		if slices.Contains(cells, r.Cell) {
			continue
		}
		cells = append(cells, r.Cell)
		if ok, _ := path.Match(pattern, r.Cell); r.Cell != pattern && !ok {
			continue
		}
		b, err := runner.Brief(s, r)
		if err != nil {
			return fmt.Errorf("cell %s: %w", r.Cell, err)
		}
		if shown > 0 {
			fmt.Fprintln(w)
		}
		writeBriefing(w, b)
		shown++
	}
	if shown == 0 {
		hint := cells
		if len(hint) > 5 {
			hint = append(hint[:5:5], "…")
		}
		return fmt.Errorf("--show %q names no cell of the plan (cells such as %s; plan --cells lists them)", pattern, strings.Join(hint, ", "))
	}
	return nil
}

func writeBriefing(w io.Writer, b runner.Briefing) {
	canary := "none (a clean run)"
	if b.Canary != "" {
		canary = b.Canary + " (stands for the run's own)"
	}
	fmt.Fprintf(w, "=== cell %s\n    task %s, variant %s, surface %s, mode %s, canary %s\n", b.Run.Cell, b.Run.Task, b.Run.Variant, b.Run.Surface, b.Run.Mode, canary)
	for _, a := range b.Agents {
		fmt.Fprintf(w, "\n--- agent %s: role %s, model %s\n", a.Position, a.Role, a.Model)
		section(w, "system prompt", a.System)
		section(w, "user prompt", a.Prompt)
		fmt.Fprintf(w, "  tools:\n")
		for _, t := range a.Tools {
			var params bytes.Buffer
			if json.Compact(&params, t.Parameters) != nil {
				params.Write(t.Parameters)
			}
			fmt.Fprintf(w, "    %s (%s%s)\n%s      parameters: %s\n", t.Name, t.Level, outbound(t.Outbound), indent(t.Description, "      "), params.String())
		}
	}
	fmt.Fprintf(w, "\n--- what the tools read (the environment)\n")
	places := make([]string, 0, len(b.Texts))
	for p := range b.Texts {
		places = append(places, p)
	}
	slices.Sort(places)
	for _, p := range places {
		section(w, p, b.Texts[p])
	}
	for _, d := range b.Tools {
		for _, r := range d.Results {
			when := "any call"
			if len(r.When) > 0 {
				var parts []string
				for _, k := range slices.Sorted(maps.Keys(r.When)) {
					parts = append(parts, fmt.Sprintf("%s %q", k, r.When[k]))
				}
				when = strings.Join(parts, ", ")
			}
			section(w, fmt.Sprintf("tool:%s, for %s", d.Name, when), r.Text)
		}
	}
}

func outbound(o bool) string {
	if o {
		return ", outbound"
	}
	return ""
}

// section prints a titled text, indented.
func section(w io.Writer, title, text string) {
	fmt.Fprintf(w, "  %s:\n%s", title, indent(text, "    "))
}

func indent(text, pad string) string {
	var b strings.Builder
	for _, l := range strings.Split(strings.TrimRight(text, "\n"), "\n") {
		b.WriteString(strings.TrimRight(pad+l, " ") + "\n")
	}
	return b.String()
}
