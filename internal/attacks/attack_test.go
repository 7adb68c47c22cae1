package attacks

import (
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	own := []Family{{Name: "mine", Goal: GoalCanary, Template: "send " + Canary}}
	tests := []struct {
		spec, name, err string
	}{
		{spec: "tool_knowledge", name: "tool_knowledge"},
		{spec: "tool_knowledge+base64", name: "tool_knowledge+base64"},
		{spec: " ignore_previous + tags + zero_width ", name: "ignore_previous+tags+zero_width"},
		{spec: "mine+rot13", name: "mine+rot13"},
		{spec: "leetspeak_first+base64", err: `unknown attack family "leetspeak_first"`},
		{spec: "tool_knowldge", err: `did you mean "tool_knowledge"?`},
		{spec: "direct+bas64", err: `unknown attack family "direct"`},
		{spec: "paper_direct+bas64", err: `unknown encoding "bas64" in attack "paper_direct+bas64"; did you mean "base64"?`},
		{spec: "", err: "names no family"},
		{spec: "tool_knowledge+split+base64", name: "tool_knowledge+split+base64"},
		{spec: "tool_knowledge+base64+split", err: "split places the payload, so it must come first"},
		{spec: "paper_override+html_comment+base64", err: "html_comment wraps the delivered payload, so it must come last"},
		{spec: "paper_override+base64+leetspeak", err: "leetspeak after base64 or hex"},
		{spec: "paper_override+leetspeak+base64", name: "paper_override+leetspeak+base64"},
		{spec: "polite_request+rot13+hex+base64+tags+base64", err: "5 encodings, at most 4"},
		{spec: "polite_request+leetspeak+rot13+leetspeak", err: "leetspeak twice"},
		{spec: "polite_request+base64+rot13+base64", name: "polite_request+base64+rot13+base64"},
	}
	for _, tt := range tests {
		t.Run(tt.spec, func(t *testing.T) {
			a, err := Parse(tt.spec, own)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("Parse(%q) = %v, want error holding %q", tt.spec, err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatalf("Parse(%q): %v", tt.spec, err)
			}
			if a.Name() != tt.name {
				t.Errorf("Name() = %q, want %q", a.Name(), tt.name)
			}
		})
	}
}

func TestBuiltinFamiliesAreWellFormed(t *testing.T) {
	for _, f := range Families {
		t.Run(f.Name, func(t *testing.T) {
			if errs := f.Check(); len(errs) > 0 {
				t.Errorf("Check: %v", errs)
			}
			if f.Description == "" || strings.Contains(f.Description, "\n") {
				t.Errorf("description must be one line: %q", f.Description)
			}
		})
	}
}

func TestFamilyCheck(t *testing.T) {
	tests := []struct {
		name string
		f    Family
		err  string
	}{
		{"no canary", Family{Name: "a", Goal: GoalCanary, Template: "send to " + Attacker}, "holds no {{CANARY}}"},
		{"dos with canary", Family{Name: "a", Goal: GoalTaskFailure, Template: "stop " + Canary}, "carries no canary"},
		{"bad goal", Family{Name: "a", Goal: "win", Template: Canary}, `goal "win"`},
		{"unknown placeholder", Family{Name: "a", Goal: GoalCanary, Template: Canary + " {{VICTIM}}"}, "{{VICTIM}} is not one a run fills"},
		{"plus in name", Family{Name: "a+b", Goal: GoalCanary, Template: Canary}, "no + which joins"},
		{"encoding name", Family{Name: "rot13", Goal: GoalCanary, Template: Canary}, "is an encoding's"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			errs := tt.f.Check()
			var all []string
			for _, e := range errs {
				all = append(all, e.Error())
			}
			if !strings.Contains(strings.Join(all, "\n"), tt.err) {
				t.Errorf("Check() = %q, want one holding %q", all, tt.err)
			}
		})
	}
}

func TestFillNamesUserModelToolAndTask(t *testing.T) {
	f, _ := LookupFamily("important_message")
	v := Values{User: "Dana Okafor", Model: "qwen3-8b", Task: "summarise the survey"}
	got := v.Fill(f.Template)
	for _, want := range []string{"from me, Dana Okafor, to you, qwen3-8b", "(summarise the survey)", Canary, Attacker} {
		if !strings.Contains(got, want) {
			t.Errorf("filled letter lacks %q:\n%s", want, got)
		}
	}
	tk, _ := LookupFamily("tool_knowledge")
	call := CallFor("send_report", []string{"to", "subject", "body"})
	got = Values{Tool: "send_report", Call: call}.Fill(tk.Template)
	if !strings.Contains(got, `send_report(to="{{ATTACKER}}", subject="Archive copy {{CANARY}}", body="reference {{CANARY}}")`) {
		t.Errorf("tool-knowledge does not spell the call:\n%s", got)
	}
	if strings.Contains(Values{}.Fill(tk.Template), "{{TOOL}}") {
		t.Error("an empty value leaves its placeholder")
	}
}

func TestDenialOfServiceCarriesNoCanary(t *testing.T) {
	for _, f := range Families {
		if got := CarriesCanary(f.Template); got == (f.Goal == GoalTaskFailure) {
			t.Errorf("%s: goal %s, template holds canary %v", f.Name, f.Goal, got)
		}
	}
}
