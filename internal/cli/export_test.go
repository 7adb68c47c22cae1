package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestExportInspect: export inspect writes one log per task and model or
// pair of the fixture study, in the format asked, and lists them.
func TestExportInspect(t *testing.T) {
	const study = "../export/testdata/study"
	for _, tt := range []struct {
		name, format, ext string
		code              int
	}{
		{"eval", "eval", ".eval", exitOK},
		{"json", "json", ".json", exitOK},
		{"unknown format", "yaml", "", exitUsage},
	} {
		t.Run(tt.name, func(t *testing.T) {
			out := t.TempDir()
			code, stdout, stderr := killchain("export", "inspect", "--out", out, "--format", tt.format, study)
			if code != tt.code {
				t.Fatalf("exit %d, want %d\n%s%s", code, tt.code, stdout, stderr)
			}
			if tt.code != exitOK {
				return
			}
			files, _ := filepath.Glob(filepath.Join(out, "*"+tt.ext))
			if len(files) != 5 || !strings.HasSuffix(stdout, "wrote 5 Inspect logs\n") {
				t.Errorf("%d files, stdout %q; want 5 logs", len(files), stdout)
			}
			for _, f := range files {
				if !strings.Contains(stdout, f+"\n") {
					t.Errorf("stdout does not list %s", f)
				}
				if st, err := os.Stat(f); err != nil || st.Size() == 0 {
					t.Errorf("%s: %v", f, err)
				}
			}
		})
	}
	if code, _, _ := killchain("export", "csv", study); code != exitUsage {
		t.Errorf("export csv: exit %d, want %d", code, exitUsage)
	}
}

// TestExportBare: export without a format prints its help, as the other
// parent commands do (it said "export takes 1 argument, got 0"); a folder
// in the format's place is an unknown format.
func TestExportBare(t *testing.T) {
	tests := []struct {
		name string
		args []string
		code int
		want string
	}{
		{"no format", []string{"export"}, exitOK, "killchain export inspect DIR"},
		{"a folder for a format", []string{"export", "runs/smoke"}, exitUsage, `unknown format "runs/smoke": want inspect`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, stdout, stderr := killchain(tt.args...)
			if code != tt.code || !strings.Contains(stdout+stderr, tt.want) {
				t.Errorf("exit %d, want %d and %q:\n%s%s", code, tt.code, tt.want, stdout, stderr)
			}
		})
	}
}
