package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// audioStudy is a scripted study with audio_inject and a text task,
// writing into out.
func audioStudy(out string) string {
	return `
study "needs_audio" {
  seed    = 1
  output  = "` + out + `"
}

model "compliant" {
  provider = "scripted"
  policy   = "compliant"
}

grid "g" {
  tasks      = ["memory_poison", "audio_inject"]
  models     = ["compliant"]
  conditions = ["plain", "hack"]
}
`
}

func TestBackendWithoutAudioIsRefused(t *testing.T) {
	tests := []struct {
		name     string
		args     []string
		code     int
		stderr   []string // substrings
		noStdout bool
	}{
		{"plan on local", []string{"plan", "--sandbox", "local"}, 1,
			[]string{`sandbox "local" cannot run`, "audio_inject needs audio (speech synthesis and transcription)", "--sandbox docker", "remove audio_inject"}, true},
		{"run on local", []string{"run", "-q", "--sandbox", "local"}, 1,
			[]string{`sandbox "local" cannot run`, "audio_inject needs audio", "--sandbox docker"}, true},
		{"run --resume on local", []string{"run", "-q", "--resume", "--sandbox", "local"}, 1,
			[]string{"audio_inject needs audio"}, true},
		{"plan on docker", []string{"plan"}, 0, nil, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "out")
			file := writeStudy(t, audioStudy(out))
			code, stdout, stderr := killchain(append(tt.args, file)...)
			if code != tt.code {
				t.Fatalf("exit %d, want %d; stderr:\n%s", code, tt.code, stderr)
			}
			for _, want := range tt.stderr {
				if !strings.Contains(stderr, want) {
					t.Errorf("stderr lacks %q:\n%s", want, stderr)
				}
			}
			if tt.noStdout && stdout != "" {
				t.Errorf("stdout = %q, want nothing", stdout)
			}
			if _, err := os.Stat(out); !os.IsNotExist(err) {
				t.Errorf("%s was created: %v", out, err)
			}
		})
	}
}
