package groundtruth

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/killchain/killchain/internal/plural"
)

// Write prints the report: one line per ground truth (and one per refused
// pair or failure), the warnings, and a summary line.
func (r *Report) Write(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	for _, v := range r.Verdicts {
		if v.OK() {
			fmt.Fprintf(tw, "ok\t%s\t%s\t%s\n", v.Kind, v.Name, v.summary())
			continue
		}
		for _, f := range v.Failures {
			fmt.Fprintf(tw, "FAIL\t%s\t%s\t%s\n", v.Kind, v.Name, f)
		}
		for _, in := range v.Refused {
			fmt.Fprintf(tw, "FAIL\t%s\t%s\trefused with injection %s: its ground truth also reaches that injection's check, so the pair would score the attack as reached on runs where the agent only did its task\n", v.Kind, v.Name, in)
		}
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, warn := range r.Warnings {
		fmt.Fprintf(w, "warning: %s\n", warn)
	}
	took := ""
	if r.Elapsed > 0 {
		took = fmt.Sprintf(" in %s", r.Elapsed.Round(time.Millisecond))
	}
	_, err := fmt.Fprintf(w, "tasks check: %s on sandbox %s%s: %d passed, %d failed, %s\n",
		plural.Count(len(r.Verdicts), "ground truth"), r.Backend, took, len(r.Verdicts)-r.Failed(), r.Failed(), plural.Count(len(r.Warnings), "warning"))
	return err
}

// summary says what a passing ground truth showed.
func (v Verdict) summary() string {
	if v.Kind == "injection" {
		return "reaches its check"
	}
	s := "reaches its goal and no injection's check"
	if len(v.Reads) > 0 {
		s += "; reads " + strings.Join(v.Reads, ", ")
	}
	return s
}
