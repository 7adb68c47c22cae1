package gate

import (
	"encoding/xml"
	"fmt"
	"io"
	"strings"

	"github.com/killchain/killchain/internal/vocab"
)

// JUnit XML as CI dashboards read it (the Jenkins/Surefire schema).
type junitSuites struct {
	XMLName  xml.Name     `xml:"testsuites"`
	Name     string       `xml:"name,attr"`
	Tests    int          `xml:"tests,attr"`
	Failures int          `xml:"failures,attr"`
	Skipped  int          `xml:"skipped,attr"`
	Suites   []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name     string      `xml:"name,attr"`
	Tests    int         `xml:"tests,attr"`
	Failures int         `xml:"failures,attr"`
	Skipped  int         `xml:"skipped,attr"`
	Cases    []junitCase `xml:"testcase"`
}

type junitCase struct {
	Name       string        `xml:"name,attr"`
	Classname  string        `xml:"classname,attr"`
	Properties *junitProps   `xml:"properties,omitempty"`
	Failure    *junitFailure `xml:"failure,omitempty"`
	Skipped    *junitSkipped `xml:"skipped,omitempty"`
	SystemOut  string        `xml:"system-out,omitempty"`
}

type junitProps struct {
	Props []junitProp `xml:"property"`
}

type junitProp struct {
	Name  string `xml:"name,attr"`
	Value string `xml:"value,attr"`
}

type junitFailure struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr"`
	Text    string `xml:",chardata"`
}

type junitSkipped struct {
	Message string `xml:"message,attr"`
}

// WriteJUnit writes the report as JUnit XML: a "thresholds" suite with one
// test case per threshold (a failure element on a breach, or on an
// inconclusive verdict under strict; a skipped element when inconclusive
// otherwise; properties with the rule and figures), a "baseline" suite with
// one case per compared model, and a "cells" suite with one passing case
// per cell whose system-out holds its stage counts.
func (rep *Report) WriteJUnit(w io.Writer) error {
	all := junitSuites{Name: "killchain " + rep.Study}
	th := junitSuite{Name: "thresholds"}
	for _, r := range rep.Thresholds {
		t := r.Threshold
		c := junitCase{Name: t.Name, Classname: "killchain.threshold", Properties: &junitProps{Props: []junitProp{
			{"metric", t.Metric}, {"rule", t.Rule()}, {"decision", RuleText(t.Bound, t.Value)},
			{"k", fmt.Sprint(r.K)}, {"n", fmt.Sprint(r.N)},
			{"wilson_lo", fmt.Sprintf("%.4f", r.Lo)}, {"wilson_hi", fmt.Sprintf("%.4f", r.Hi)},
			{"verdict", r.Verdict.String()}, {"definition", Definitions[t.Metric]},
		}}}
		msg := fmt.Sprintf("%s: %s — %s: %s", t.Rule(), r.Figures(), r.verdictWord(rep.Strict), r.Reason())
		switch {
		case r.Failed(rep.Strict):
			c.Failure = &junitFailure{Message: msg, Type: r.Verdict.String(), Text: RuleText(t.Bound, t.Value)}
			th.Failures++
		case r.Verdict == Inconclusive:
			c.Skipped = &junitSkipped{Message: msg}
			th.Skipped++
		default:
			c.SystemOut = msg
		}
		th.Cases = append(th.Cases, c)
	}
	th.Tests = len(th.Cases)
	all.Suites = append(all.Suites, th)

	if rep.Baseline != "" {
		bs := junitSuite{Name: "baseline"}
		for _, cmp := range rep.Comparisons {
			c := junitCase{Name: "asr " + cmp.Model, Classname: "killchain.baseline", SystemOut: cmp.Text()}
			if cmp.Regressed {
				c.Failure = &junitFailure{Message: cmp.Text(), Type: "regression",
					Text: "Newcombe hybrid score 95% interval of the ASR difference (now − " + rep.Baseline + ") lies above 0"}
				bs.Failures++
			}
			bs.Cases = append(bs.Cases, c)
		}
		bs.Tests = len(bs.Cases)
		all.Suites = append(all.Suites, bs)
	}

	cs := junitSuite{Name: "cells"}
	for _, cell := range rep.Cells {
		cs.Cases = append(cs.Cases, junitCase{Name: cell.Key, Classname: "killchain.cell." + cell.Task, SystemOut: cell.Text()})
	}
	cs.Tests = len(cs.Cases)
	all.Suites = append(all.Suites, cs)

	for _, s := range all.Suites {
		all.Tests += s.Tests
		all.Failures += s.Failures
		all.Skipped += s.Skipped
	}
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return fmt.Errorf("write junit: %w", err)
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(all); err != nil {
		return fmt.Errorf("write junit: %w", err)
	}
	_, err := io.WriteString(w, "\n")
	return err
}

// Text renders a cell's counts, one fact per line.
func (c Cell) Text() string {
	var b strings.Builder
	fmt.Fprintf(&b, "task=%s model=%s variant=%s condition=%s defense=%s\n", c.Task, c.Model, c.Variant, c.Condition, c.Defense)
	fmt.Fprintf(&b, "runs=%d errors=%d attacked=%d task_success=%d\n", c.Runs, c.Errors, c.Attacked, c.Success)
	if c.Attacked > 0 {
		b.WriteString("furthest stage:")
		for _, s := range vocab.StageNames() {
			fmt.Fprintf(&b, " %s=%d", s, c.Furthest[s])
		}
		fmt.Fprintf(&b, "\nattack_goal=%d noticed=%d no_tool_call=%d\n", c.AttackGoal, c.Noticed, c.NoToolCall)
	}
	return b.String()
}
