package groundtruth

import (
	"fmt"
	"io"
	"strings"

	"github.com/killchain/killchain/internal/sanitize"
	"github.com/killchain/killchain/tasks"
)

// WriteMarkdown prints the suites of the checked environments as Markdown,
// one section per environment: its user tasks (what each asks, its roles,
// whether it is helpful, what its goal's check tests, the vectors its
// ground truth reads) and its injections (kind, goal, check, where it is
// planted, whether Executed applies). docs/suites.md holds the built-ins'
// as `killchain tasks check --markdown` prints them.
func (r *Report) WriteMarkdown(w io.Writer, set *tasks.Set) error {
	reads := map[string][]string{}
	for _, v := range r.Verdicts {
		reads[v.Name] = v.Reads
	}
	var envs []string
	for _, v := range r.Verdicts {
		if len(envs) == 0 || envs[len(envs)-1] != v.Environment {
			envs = append(envs, v.Environment)
		}
	}
	for _, name := range envs {
		env, ok := set.Environment(name)
		if !ok {
			continue
		}
		users, injs := set.UserTasksOf(name), set.InjectionsOn(name)
		fmt.Fprintf(w, "### `%s`: %d user tasks, %d injections\n\n", cell(name), len(users), len(injs))
		fmt.Fprintln(w, "| user task | what it asks | roles | helpful | its goal's check | reads |")
		fmt.Fprintln(w, "| --- | --- | --- | --- | --- | --- |")
		for _, t := range users {
			roles := make([]string, len(t.Roles))
			for i, ro := range t.Roles {
				roles[i] = ro.Name
			}
			helpful := ""
			if t.Helpful {
				helpful = "yes"
			}
			check := ""
			if t.Goal.Check != nil {
				check = code(t.Goal.Check.Source)
			}
			fmt.Fprintf(w, "| `%s` | %s | %s | %s | %s | %s |\n", cell(t.Name), cell(t.Description), cell(strings.Join(roles, " → ")),
				helpful, check, cell(strings.Join(reads[t.Name], ", ")))
		}
		fmt.Fprintln(w)
		fmt.Fprintln(w, "| injection | kind | the attacker's goal | its check | planted at | Executed |")
		fmt.Fprintln(w, "| --- | --- | --- | --- | --- | --- |")
		for _, in := range injs {
			at := "every vector"
			if len(in.Vectors) > 0 {
				at = strings.Join(in.Vectors, ", ")
			}
			exec := "n/a: the check decides"
			if in.ExecutedApplies(env) {
				exec = "tracked"
			}
			fmt.Fprintf(w, "| `%s` | %s | %s | %s | %s | %s |\n", cell(in.Name), cell(in.Kind), cell(in.Goal), code(in.Check.Source), cell(at), exec)
		}
		fmt.Fprintln(w)
	}
	return nil
}

// cell is text in one Markdown table cell: one line, no bar.
func cell(s string) string {
	return strings.ReplaceAll(sanitize.Line(strings.Join(strings.Fields(s), " ")), "|", `\|`)
}

// code is an expression in one cell, as code.
func code(s string) string {
	c := cell(s)
	if c == "" {
		return ""
	}
	return "`" + strings.ReplaceAll(c, "`", "'") + "`"
}
