package cli

import (
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// typoStudy misspells a task in its grid (line 11, column 17).
const typoStudy = `study "typo" {
  seed = 1
}

model "a" {
  provider = "scripted"
  policy   = "compliant"
}

grid "g" {
  tasks      = ["memory_posion"]
  models     = ["a"]
  conditions = ["hack"]
}
`

// TestValidateManyFiles: validate checks every file it is given, prints
// every problem as file:line:col on stderr and each file's verdict on
// stdout (so that `validate f.hcl > out` keeps it), sums up when given
// several, and exits 1 when any file has an error.
func TestValidateManyFiles(t *testing.T) {
	typo := writeStudy(t, typoStudy)
	missing := filepath.Join(t.TempDir(), "missing.hcl")
	tests := []struct {
		name   string
		files  []string
		code   int
		stdout []string // each line in order, whole
		stderr []string
	}{
		{"one valid file", []string{smokeFile}, exitOK,
			[]string{smokeFile + `: study "smoke" is valid: 8 grids, 390 runs`}, nil},
		{"every hcl file", []string{"../../hcl/ci.hcl", "../../hcl/local.hcl", "../../hcl/paper.hcl", "../../hcl/reward_hack.hcl", smokeFile}, exitOK,
			[]string{`../../hcl/ci.hcl: study "ci" is valid: `, `../../hcl/local.hcl: study "local" is valid: `, `../../hcl/paper.hcl: study "paper" is valid: `,
				`../../hcl/reward_hack.hcl: study "reward_hack" is valid: 1 grid, `, smokeFile + `: study "smoke" is valid: `,
				"checked 5 files: 5 valid, 0 with errors"}, nil},
		{"an error among valid files", []string{smokeFile, typo, missing, "../../hcl/ci.hcl"}, exitFailed,
			[]string{smokeFile + `: study "smoke" is valid`, typo + ": not valid: 1 error", missing + ": not valid: 1 error",
				`../../hcl/ci.hcl: study "ci" is valid`, "checked 4 files: 2 valid, 2 with errors"},
			[]string{typo + `:11:17: error: Unknown task; "memory_posion" is not a task; did you mean "memory_poison"?`,
				missing + ": error: cannot read study file; no such file or directory"}},
		{"one bad file", []string{typo}, exitFailed, []string{typo + ": not valid: 1 error"}, []string{typo + ":11:17: error: Unknown task"}},
	}
	diag := regexp.MustCompile(`^[^:]+:\d+:\d+: (error|warning): `)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, stdout, stderr := killchain(append([]string{"validate"}, tt.files...)...)
			if code != tt.code {
				t.Fatalf("exit %d, want %d\n%s%s", code, tt.code, stdout, stderr)
			}
			lines := strings.Split(strings.TrimSuffix(stdout, "\n"), "\n")
			if len(lines) != len(tt.stdout) {
				t.Fatalf("stdout holds %d lines, want %d:\n%s", len(lines), len(tt.stdout), stdout)
			}
			for i, w := range tt.stdout {
				if !strings.HasPrefix(lines[i], w) {
					t.Errorf("stdout line %d %q, want it to start %q", i+1, lines[i], w)
				}
			}
			for _, w := range tt.stderr {
				if !strings.Contains(stderr, w) {
					t.Errorf("stderr lacks %q:\n%s", w, stderr)
				}
			}
			if strings.Contains(stderr, "valid") {
				t.Errorf("a verdict on stderr:\n%s", stderr)
			}
			for _, l := range strings.Split(stderr, "\n") {
				if strings.Contains(l, "error: ") && !diag.MatchString(l) && !strings.HasPrefix(l, missing+": error: ") {
					t.Errorf("problem without file:line:col: %q", l)
				}
			}
		})
	}
}
