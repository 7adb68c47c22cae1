package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/killchain/killchain/tasks"
)

const (
	userStudy = "../../runner/testdata/usertasks/study.hcl"
	bank      = "../../hcl/suite/pocketbank.hcl"
	falsePos  = "../../verifiers/groundtruth/testdata/false_positive.hcl"
)

func TestTasksCommands(t *testing.T) {
	dir := t.TempDir()
	starter := filepath.Join(dir, "fresh_task.hcl")
	tests := []struct {
		name     string
		args     []string
		code     int
		stdout   []string // substrings
		stderr   []string
		noStdout []string
	}{
		{name: "built-in tasks", args: []string{"tasks"}, stdout: []string{"memory_poison      built-in", "reward_dates"}, noStdout: []string{"invoice_approval"}},
		{name: "a study's tasks too", args: []string{"tasks", userStudy},
			stdout: []string{"invoice_approval   ../../runner/testdata/usertasks/tasks/invoice_approval.hcl:6", "memory_poison      built-in"}},
		{name: "show a built-in as its file", args: []string{"tasks", "show", "memory_poison"}, stdout: []string{"# memory_poison: notes", `task "memory_poison" {`, "{{PAYLOAD}}"}},
		{name: "show a suite's user task as its block", args: []string{"tasks", "show", "bank.bill_run"},
			stdout: []string{`task "bank.bill_run" {`, `mode        = "pipeline"`}, noStdout: []string{`task "bank.account_overview"`, "# The user tasks of the bank suite"}},
		{name: "show the self-contained form", args: []string{"tasks", "show", "--resolved", "reward_dates"}, stdout: []string{"file \"tests/check_case.sh\"", "timeout 5 sh solution/dates.sh"}},
		{name: "show a study's task", args: []string{"tasks", "show", "--study", userStudy, "calendar_notes"}, stdout: []string{`task "calendar_notes"`}},
		{name: "show an unknown task", args: []string{"tasks", "show", "memory_poisn"}, code: 1, stderr: []string{`no task, injection, suite or environment "memory_poisn"; did you mean "memory_poison"?`}},
		{name: "new writes a starting file", args: []string{"tasks", "new", "--output", starter, "fresh_task"}, stdout: []string{"wrote " + starter}},
		{name: "which validates", args: []string{"validate", starter}, stdout: []string{"task file is valid: 1 task (fresh_task)"}},
		{name: "and is never overwritten", args: []string{"tasks", "new", "--output", starter, "fresh_task"}, code: 1, stderr: []string{"file exists"}},
		{name: "new refuses a bad name", args: []string{"tasks", "new", "--output", "-", "no spaces"}, code: 1, stderr: []string{"task name"}},
		{name: "a broken task file", args: []string{"validate", "../../tasks/testdata/invalid/unknown_tool.hcl"}, code: 1,
			stderr: []string{"unknown_tool.hcl:10:30: error: Unknown tool", `did you mean "send_report"?`}},
		{name: "a task file's suites, user tasks and injections", args: []string{"tasks", bank},
			stdout: []string{"SUITE ", "pocketbank  ../../hcl/suite/pocketbank.hcl:", "Rosa Lindqvist", "USER TASK ", "pocketbank.month_review ", "../../hcl/suite/pocketbank.hcl:182",
				"pipeline", "helpful", "INJECTION ", "pocketbank.leak_iban", "exfiltration", "NL90 GULL 0048 1120 73", "memory_poison      built-in"}},
		{name: "the built-in suites", args: []string{"tasks"}, stdout: []string{"SUITE ", "USER TASK ", "INJECTION ", "travel "}},
		{name: "show an injection", args: []string{"tasks", "show", "--study", bank, "pocketbank.leak_iban"}, stdout: []string{`injection "pocketbank.leak_iban" {`, `kind        = "exfiltration"`}},
		{name: "show a suite and its environment", args: []string{"tasks", "show", "--study", bank, "pocketbank"},
			stdout: []string{`suite "pocketbank" {`, `environment "pocketbank" {`, `yamldecode(file("pocketbank.yaml"))`}},
		{name: "show a user task resolved", args: []string{"tasks", "show", "--resolved", "--study", bank, "pocketbank.pay_bill"},
			stdout: []string{`task "pocketbank.pay_bill" {`, `environment "pocketbank" {`, `note   = "{{PAYLOAD:bill_note}}"`, `injection "pocketbank.add_payee" {`,
				`user_tasks  = ["pocketbank.pay_bill"]`}, noStdout: []string{"yamldecode"}},
		{name: "tasks check passes the example", args: []string{"tasks", "check", bank},
			stdout: []string{"ok  injection  pocketbank.leak_iban", "5 ground truths on sandbox local in ", "5 passed, 0 failed, 0 warnings"}},
		{name: "tasks check refuses a pair by name", args: []string{"tasks", "check", falsePos}, code: 1,
			stdout: []string{"FAIL  user task  pocketbank.pay_bill       refused with injection pocketbank.redirect_bill", "4 passed, 2 failed"}},
		{name: "tasks check on another sandbox", args: []string{"tasks", "check", "--sandbox", "kubernetes", bank}, code: 2, stderr: []string{"local or docker"}},
		{name: "tasks check of a broken file", args: []string{"tasks", "check", "../../tasks/testdata/invalid/unknown_tool.hcl"}, code: 1, stderr: []string{"error: Unknown tool"}},
		{name: "plan --show", args: []string{"plan", "--show", "single/calendar_notes/invite/compliant/hack/none", userStudy},
			stdout: []string{"=== cell single/calendar_notes/invite/compliant/hack/none", "system prompt:", "list_meetings (read)",
				`note "SECRET-00000000"`, "tool:list_meetings, for date \"2026-05-12\":"}},
		{name: "plan --show with a pattern", args: []string{"plan", "--show", "single/*/none/silent/plain/none", userStudy},
			stdout:   []string{"=== cell single/invoice_approval/none/silent", "=== cell single/calendar_notes/none/silent", "canary none (a clean run)"},
			noStdout: []string{"SECRET-"}},
		{name: "plan --show of no cell", args: []string{"plan", "--show", "nope", userStudy}, code: 1, stderr: []string{`--show "nope" names no cell`}},
		{name: "plan --skip-tasks", args: []string{"plan", "--skip-tasks", "ticket_relay", userStudy},
			stdout: []string{"selection --skip-tasks ticket_relay: 48 of the study's 66 runs", "invoice_approval  24"}, noStdout: []string{"ticket_relay  "}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, stdout, stderr := killchain(tt.args...)
			if code != tt.code {
				t.Fatalf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, tt.code, stdout, stderr)
			}
			for _, s := range tt.stdout {
				if !strings.Contains(stdout, s) {
					t.Errorf("stdout lacks %q:\n%s", s, stdout)
				}
			}
			for _, s := range tt.noStdout {
				if strings.Contains(stdout, s) {
					t.Errorf("stdout holds %q", s)
				}
			}
			for _, s := range tt.stderr {
				if !strings.Contains(stderr, s) {
					t.Errorf("stderr lacks %q:\n%s", s, stderr)
				}
			}
		})
	}
	t.Run("the starter is the embedded one", func(t *testing.T) {
		data, err := os.ReadFile(starter)
		if err != nil {
			t.Fatal(err)
		}
		want, _ := tasks.Starter("fresh_task")
		if string(data) != string(want) {
			t.Error("tasks new wrote another file than tasks.Starter")
		}
	})
}
