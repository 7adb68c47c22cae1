package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/killchain/killchain/internal/results"
)

// TestRecount: a sound folder recounts with 0 disagreements; one flipped
// stage flag in runs.jsonl is named, counted in the singular, and exits 1.
func TestRecount(t *testing.T) {
	tests := []struct {
		name   string
		tamper bool
		code   int
		stdout []string
		stderr string
	}{
		{"sound", false, exitOK, []string{"recounted 6 attacked runs (6 clean or errored skipped, 0 without a transcript): 0 disagreements"}, ""},
		{"one flag flipped", true, exitFailed, []string{"  executed   runs.jsonl false  recount true", ": 1 disagreement\n"},
			"killchain: 1 stage label disagrees with the recount ([executed])"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := finishedStudy(t)
			if tt.tamper {
				p := filepath.Join(dir, results.RunsFile)
				b, err := os.ReadFile(p)
				if err != nil {
					t.Fatal(err)
				}
				flipped := strings.Replace(string(b), `"executed":true`, `"executed":false`, 1)
				if flipped == string(b) {
					t.Fatal("no executed run to flip")
				}
				if err := os.WriteFile(p, []byte(flipped), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			code, stdout, stderr := killchain("recount", dir)
			if code != tt.code {
				t.Fatalf("exit %d, want %d\n%s%s", code, tt.code, stdout, stderr)
			}
			for _, w := range tt.stdout {
				if !strings.Contains(stdout, w) {
					t.Errorf("stdout lacks %q:\n%s", w, stdout)
				}
			}
			if !strings.Contains(stderr, tt.stderr) {
				t.Errorf("stderr lacks %q:\n%s", tt.stderr, stderr)
			}
		})
	}
}
