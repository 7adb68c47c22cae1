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
