package results

import (
	"os"
	"path/filepath"
	"testing"
)

func TestOpenDropsAPartialLastLine(t *testing.T) {
	tests := []struct {
		name, content, want string
	}{
		{"complete", "{\"run_id\":\"a\"}\n", "{\"run_id\":\"a\"}\n"},
		{"partial tail", "{\"run_id\":\"a\"}\n{\"run_id\":\"b\",\"sta", "{\"run_id\":\"a\"}\n"},
		{"only a partial line", "{\"run_id\":\"b\"", ""},
		{"empty", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			if err := os.WriteFile(filepath.Join(dir, RunsFile), []byte(tt.content), 0o644); err != nil {
				t.Fatal(err)
			}
			w, err := Open(dir)
			if err != nil {
				t.Fatal(err)
			}
			w.Close()
			got, _ := os.ReadFile(filepath.Join(dir, RunsFile))
			if string(got) != tt.want {
				t.Errorf("runs.jsonl = %q, want %q", got, tt.want)
			}
		})
	}
}
