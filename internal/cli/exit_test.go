package cli

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// TestExitCodes: each exit status of the table, from a command line that
// ends with it, with what stderr says.
func TestExitCodes(t *testing.T) {
	breach := writeStudy(t, gateStudy(compliantASR))
	clean := writeStudy(t, gateStudy(""))
	canceled, cancel := context.WithCancel(context.Background())
	cancel()
	tests := []struct {
		name   string
		ctx    context.Context
		args   func(out string) []string
		code   int
		stderr string // substring
		stdout string // substring
	}{
		{name: "ok", args: func(string) []string { return []string{"validate", smokeFile} }, code: exitOK},
		{name: "bad study file", args: func(string) []string { return []string{"validate", "testdata/nothing.hcl"} },
			code: exitFailed, stderr: "cannot read study file"},
		{name: "missing folder", args: func(out string) []string { return []string{"report", out} },
			code: exitFailed, stderr: "killchain: "},
		{name: "unknown flag", args: func(string) []string { return []string{"run", "--frobnicate", smokeFile} },
			code: exitUsage, stderr: "unknown flag: --frobnicate\nRun 'killchain run --help' for usage."},
		{name: "bad flag value", args: func(string) []string { return []string{"plan", "--sample", "many", smokeFile} },
			code: exitUsage, stderr: `invalid argument "many" for "--sample`},
		{name: "unknown command", args: func(string) []string { return []string{"rnu"} },
			code: exitUsage, stderr: `unknown command "rnu" for "killchain"; did you mean "run"?`},
		{name: "unknown subcommand", args: func(string) []string { return []string{"images", "biuld"} },
			code: exitUsage, stderr: `unknown command "biuld" for "killchain images"; did you mean "build"?`},
		{name: "too many arguments", args: func(string) []string { return []string{"plan", smokeFile, smokeFile} },
			code: exitUsage, stderr: "plan takes 1 argument, got 2\nRun 'killchain plan --help' for usage."},
		{name: "no arguments", args: func(string) []string { return []string{"validate"} },
			code: exitUsage, stderr: "validate takes at least 1 argument, got 0"},
		{name: "too many for a range", args: func(string) []string { return []string{"report", "a", "b", "c"} },
			code: exitUsage, stderr: "report takes 1 to 2 arguments, got 3"},
		{name: "too many for an optional one", args: func(string) []string { return []string{"doctor", "a", "b"} },
			code: exitUsage, stderr: "doctor takes at most 1 argument, got 2"},
		{name: "command's own usage", args: func(string) []string { return []string{"report", "--compare", "a"} },
			code: exitUsage, stderr: "--compare needs two study folders"},
		{name: "a group alone shows its help", args: func(string) []string { return []string{"sandbox"} },
			code: exitOK, stdout: "Available Commands:"},
		{name: "gate breached", args: func(out string) []string { return []string{"run", "-q", "--output", out, breach} },
			code: exitBreached, stdout: "FAIL (exit 99)"},
		{name: "interrupted", ctx: canceled, args: func(out string) []string { return []string{"run", "-q", "--output", out, clean} },
			code: exitInterrupted, stdout: "interrupted: finish it with `killchain run --resume "},
		{name: "failure after a signal", ctx: canceled, args: func(out string) []string { return []string{"gate", out} },
			code: exitInterrupted},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := tt.ctx
			if ctx == nil {
				ctx = context.Background()
			}
			var stdout, stderr strings.Builder
			out := filepath.Join(t.TempDir(), "out")
			code := Main(ctx, tt.args(out), &stdout, &stderr)
			if code != tt.code {
				t.Fatalf("exit %d, want %d\n%s%s", code, tt.code, stdout.String(), stderr.String())
			}
			if !strings.Contains(stderr.String(), tt.stderr) {
				t.Errorf("stderr lacks %q:\n%s", tt.stderr, stderr.String())
			}
			if !strings.Contains(stdout.String(), tt.stdout) {
				t.Errorf("stdout lacks %q:\n%s", tt.stdout, stdout.String())
			}
		})
	}
}

// TestExitCodesDocumented: the root's help and docs/cli.md list every code
// of the table with its meaning, and only those.
func TestExitCodesDocumented(t *testing.T) {
	code, help, stderr := killchain("--help")
	if code != exitOK {
		t.Fatalf("--help: exit %d\n%s", code, stderr)
	}
	doc, err := os.ReadFile("../../docs/cli.md")
	if err != nil {
		t.Fatal(err)
	}
	flat := strings.Join(strings.Fields(help), " ")
	for _, e := range exitCodes {
		if !strings.Contains(flat, strconv.Itoa(e.code)+" "+e.meaning) {
			t.Errorf("--help lacks exit %d: %q", e.code, e.meaning)
		}
	}
	// docs/cli.md holds the table as "| code | meaning |" rows.
	row := regexp.MustCompile(`(?m)^\| (\d+) +\| (.+?) +\|$`)
	var documented []string
	for _, m := range row.FindAllStringSubmatch(string(doc), -1) {
		documented = append(documented, m[1]+" "+m[2])
	}
	var want []string
	for _, e := range exitCodes {
		want = append(want, strconv.Itoa(e.code)+" "+e.meaning)
	}
	if !slices.Equal(documented, want) {
		t.Errorf("docs/cli.md's exit codes\n  got  %q\n  want %q", documented, want)
	}
}
