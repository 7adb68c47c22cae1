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
// every problem as file:line:col, sums up when given several, and exits 1
// when any file has an error.
func TestValidateManyFiles(t *testing.T) {
	typo := writeStudy(t, typoStudy)
	missing := filepath.Join(t.TempDir(), "missing.hcl")
	tests := []struct {
		name   string
		files  []string
		code   int
		stderr []string
	}{
		{"one valid file", []string{smokeFile}, exitOK,
			[]string{smokeFile + `: study "smoke" is valid: 8 grids, 390 runs`}},
		{"every hcl file", []string{"../../hcl/ci.hcl", "../../hcl/local.hcl", "../../hcl/paper.hcl", "../../hcl/reward_hack.hcl", smokeFile}, exitOK,
			[]string{`study "ci" is valid`, `study "reward_hack" is valid: 1 grid, `, "checked 5 files: 5 valid, 0 with errors"}},
		{"an error among valid files", []string{smokeFile, typo, missing, "../../hcl/ci.hcl"}, exitFailed, []string{
			`study "smoke" is valid`, `study "ci" is valid`,
			typo + `:11:17: error: Unknown task; "memory_posion" is not a task; did you mean "memory_poison"?`,
			missing + ": error: cannot read study file; no such file or directory", "checked 4 files: 2 valid, 2 with errors"}},
		{"one bad file", []string{typo}, exitFailed, []string{typo + ":11:17: error: Unknown task"}},
	}
	diag := regexp.MustCompile(`^[^:]+:\d+:\d+: (error|warning): `)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, stdout, stderr := killchain(append([]string{"validate"}, tt.files...)...)
			if code != tt.code {
				t.Fatalf("exit %d, want %d\n%s%s", code, tt.code, stdout, stderr)
			}
			for _, w := range tt.stderr {
				if !strings.Contains(stderr, w) {
					t.Errorf("stderr lacks %q:\n%s", w, stderr)
				}
			}
			if len(tt.files) == 1 && strings.Contains(stderr, "checked ") {
				t.Errorf("a summary for one file:\n%s", stderr)
			}
			for _, l := range strings.Split(stderr, "\n") {
				if strings.Contains(l, "error: ") && !diag.MatchString(l) && !strings.HasPrefix(l, missing+": error: ") {
					t.Errorf("problem without file:line:col: %q", l)
				}
			}
		})
	}
}
