package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestReport: report writes a study folder's report where it says, and
// compares two folders.
func TestReport(t *testing.T) {
	dir := finishedStudy(t)
	other := filepath.Join(t.TempDir(), "elsewhere")
	tests := []struct {
		name   string
		args   []string
		stdout string
		files  []string
	}{
		{"default folder", []string{"report", dir}, "wrote " + filepath.Join(dir, "report") + "/ (report.md, report.html, CSVs, figures/)",
			[]string{filepath.Join(dir, "report", "report.md"), filepath.Join(dir, "report", "report.html")}},
		{"--output without HTML", []string{"report", "--no-html", "--output", other, dir}, "wrote " + other,
			[]string{filepath.Join(other, "report.md")}},
		{"--compare", []string{"report", "--compare", dir, dir}, "wrote " + filepath.Join(dir, "compare", "compare.md"),
			[]string{filepath.Join(dir, "compare", "compare.md")}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, stdout, stderr := killchain(tt.args...)
			if code != exitOK {
				t.Fatalf("exit %d\n%s%s", code, stdout, stderr)
			}
			if strings.TrimSpace(stdout) != tt.stdout {
				t.Errorf("stdout %q, want %q", stdout, tt.stdout)
			}
			for _, f := range tt.files {
				if _, err := os.Stat(f); err != nil {
					t.Error(err)
				}
			}
		})
	}
	if _, err := os.Stat(filepath.Join(other, "report.html")); !os.IsNotExist(err) {
		t.Errorf("--no-html wrote report.html (%v)", err)
	}
}
