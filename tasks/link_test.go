package tasks_test

import (
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"

	"github.com/killchain/killchain/internal/hcldiag"
	"github.com/killchain/killchain/tasks"
)

// ledgerParts cuts testdata/valid/ledger.hcl into its blocks, by kind.
func ledgerParts(t *testing.T) map[string]string {
	t.Helper()
	src, err := os.ReadFile("testdata/valid/ledger.hcl")
	if err != nil {
		t.Fatal(err)
	}
	s := string(src)
	cut := func(from, to string) string {
		i := strings.Index(s, from)
		j := len(s)
		if to != "" {
			j = strings.Index(s, to)
		}
		return s[i:j]
	}
	return map[string]string{
		"environment": cut(`environment "ledger"`, `task "ledger.pay_rent"`),
		"task":        cut(`task "ledger.pay_rent"`, `injection "ledger.divert"`),
		"injection":   cut(`injection "ledger.divert"`, `suite "ledger"`),
		"suite":       cut(`suite "ledger"`, ""),
	}
}

// link decodes files (name → source) and links them with the built-ins.
func link(files map[string]string) (*tasks.Set, []*tasks.Task, hcl.Diagnostics) {
	var defs []*tasks.Defs
	l := &hcldiag.List{}
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, name := range names {
		d, diags := tasks.ParseDefs(tasks.Origin{File: name}, []byte(files[name]))
		l.Add(diags)
		defs = append(defs, d)
	}
	set, own := tasks.Link(l, tasks.Builtin(), defs...)
	hcldiag.Sort(l.Diags)
	return set, own, l.Diags
}

// keys renders diagnostics as "file:line severity summary".
func keys(diags hcl.Diagnostics) []string {
	var out []string
	for _, d := range diags {
		sev := "error"
		if d.Severity == hcl.DiagWarning {
			sev = "warning"
		}
		out = append(out, fmt.Sprintf("%s:%d %s %s", d.Subject.Filename, d.Subject.Start.Line, sev, d.Summary))
	}
	return out
}

func TestLink(t *testing.T) {
	p := ledgerParts(t)
	otherAttacker := strings.Replace(p["suite"], `user        = "Ann Okafor"`, "user        = \"Ann Okafor\"\n  attacker    = \"Someone Else\"", 1)
	changedEnv := strings.Replace(p["environment"], "balance = 100.0", "balance = 90.0", 1)
	tests := []struct {
		name       string
		files      map[string]string
		want       []string
		own        []string
		suiteTasks []string
	}{
		{name: "a task names an environment of another file",
			files: map[string]string{"a.hcl": p["environment"], "b.hcl": p["task"] + p["injection"] + p["suite"]},
			own:   []string{"ledger.pay_rent"}, suiteTasks: []string{"ledger.pay_rent"}},
		{name: "an unknown environment, with the closest name",
			files: map[string]string{"a.hcl": p["environment"], "b.hcl": strings.Replace(p["task"], `environment = "ledger"`, `environment = "ledgr"`, 1)},
			want:  []string{"b.hcl:3 error Unknown environment"}},
		{name: "the same environment twice is one",
			files: map[string]string{"a.hcl": p["environment"] + p["task"], "b.hcl": p["environment"]}, own: []string{"ledger.pay_rent"}},
		{name: "two environments of a name",
			files: map[string]string{"a.hcl": p["environment"] + p["task"], "b.hcl": changedEnv},
			want:  []string{"b.hcl:1 error Duplicate environment"}, own: []string{"ledger.pay_rent"}},
		{name: "a task and an injection of a name",
			files: map[string]string{"a.hcl": p["environment"] + p["task"], "b.hcl": strings.Replace(p["injection"], `injection "ledger.divert"`, `injection "ledger.pay_rent"`, 1)},
			want:  []string{"a.hcl:39 error Duplicate task"}},
		{name: "a suite declared again adds its members",
			files: map[string]string{
				"a.hcl": p["environment"] + p["task"] + p["injection"] + strings.Replace(p["suite"], "}", "  user_tasks = [\"ledger.pay_rent\"]\n}", 1),
				"b.hcl": strings.Replace(p["task"], `task "ledger.pay_rent"`, `task "ledger.pay_again"`, 1) +
					strings.Replace(p["suite"], "}", "  user_tasks = [\"ledger.pay_again\"]\n}", 1)},
			own: []string{"ledger.pay_rent", "ledger.pay_again"}, suiteTasks: []string{"ledger.pay_again", "ledger.pay_rent"}},
		{name: "a suite declared again with another attacker",
			files: map[string]string{"a.hcl": p["environment"] + p["task"] + p["injection"] + p["suite"], "b.hcl": otherAttacker},
			want:  []string{"b.hcl:1 error Duplicate suite"}, own: []string{"ledger.pay_rent"}},
		{name: "a suite member that does not exist",
			files: map[string]string{"a.hcl": p["environment"] + p["task"] + p["injection"] + strings.Replace(p["suite"], "}", "  user_tasks = [\"ledger.pay_rnt\"]\n}", 1)},
			want:  []string{"a.hcl:80 error Unknown user task"}, own: []string{"ledger.pay_rent"}},
		{name: "nobody names the attacker",
			files: map[string]string{"a.hcl": p["environment"] + p["task"] + strings.Replace(p["injection"], "  attacker    = \"Mallory Vane\"\n", "", 1) + p["suite"]},
			want:  []string{"a.hcl:76 error No attacker"}, own: []string{"ledger.pay_rent"}},
		{name: "an injection no agent can carry out",
			files: map[string]string{"a.hcl": p["environment"] + p["task"] + strings.Replace(p["injection"], `call "pay" {
      args = { to = "{{ATTACKER}}", amount = 5.0, memo = "{{CANARY}}" }`, `call "send_report" {
      args = { to = "{{ATTACKER}}", subject = "ledger", body = "{{CANARY}}" }`, 1)},
			want: []string{"a.hcl:71 warning No agent can make this call"}, own: []string{"ledger.pay_rent"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			set, own, diags := link(tt.files)
			if got := keys(diags); !slices.Equal(got, tt.want) {
				t.Errorf("diagnostics %q, want %q\n%v", got, tt.want, diags)
			}
			var names []string
			for _, tk := range own {
				names = append(names, tk.Name)
			}
			if !slices.Equal(names, tt.own) {
				t.Errorf("own tasks %v, want %v", names, tt.own)
			}
			if tt.suiteTasks != nil {
				su, ok := set.Suite("ledger")
				if !ok || !slices.Equal(su.UserTasks, tt.suiteTasks) {
					t.Errorf("suite %+v, want user tasks %v", su, tt.suiteTasks)
				}
			}
		})
	}
}

// TestResolvedForm: a user task's resolved form holds its environment,
// its injections and its suites, decodes alone to the same task, and its
// hash changes with what its runs depend on and nothing else.
func TestResolvedForm(t *testing.T) {
	p := ledgerParts(t)
	base := p["environment"] + p["task"] + p["injection"] + p["suite"]
	hash := func(t *testing.T, src string) string {
		t.Helper()
		_, own, diags := link(map[string]string{"a.hcl": src})
		if diags.HasErrors() || len(own) == 0 {
			t.Fatalf("%v", diags)
		}
		return own[0].Hash()
	}
	want := hash(t, base)
	sibling := strings.Replace(p["task"], `task "ledger.pay_rent"`, `task "ledger.other"`, 1)
	tests := []struct {
		name    string
		src     string
		changes bool
	}{
		{"comments and layout", "# a comment\n" + strings.ReplaceAll(base, "  ", "    "), false},
		{"a sibling user task", base + sibling, false},
		{"the environment's state", strings.Replace(base, "balance = 100.0", "balance = 90.0", 1), true},
		{"a vector's default", strings.Replace(base, `default = "nothing else is due"`, `default = "all paid"`, 1), true},
		{"a tool's expression", strings.Replace(base, `result = "'paid ' + string(args.amount) + ' to ' + args.to"`, `result = "'paid'"`, 1), true},
		{"an injection's check", strings.Replace(base, `check       = "state.sent.exists(s, s.to == attacker)"`, `check       = "state.sent.size() > 1"`, 1), true},
		{"the suite's user", strings.Replace(base, `user        = "Ann Okafor"`, `user        = "Ann Okafor-Vale"`, 1), true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := hash(t, tt.src) != want; got != tt.changes {
				t.Errorf("hash changed: %v, want %v", got, tt.changes)
			}
		})
	}
	t.Run("decodes alone", func(t *testing.T) {
		_, own, _ := link(map[string]string{"a.hcl": base + sibling})
		enc := tasks.Encode(own[0])
		for _, block := range []string{`environment "ledger"`, `injection "ledger.divert"`, `suite "ledger"`, `user_tasks  = ["ledger.pay_rent"]`} {
			if !strings.Contains(string(enc), block) {
				t.Errorf("the resolved form lacks %s:\n%s", block, enc)
			}
		}
		again, diags := tasks.ParseFile(tasks.Origin{File: "again.hcl"}, enc)
		if diags.HasErrors() || len(again) != 1 || again[0].Hash() != own[0].Hash() {
			t.Fatalf("%v\n%s", diags, enc)
		}
	})
}
