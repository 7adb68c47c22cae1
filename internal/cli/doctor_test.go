package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestDoctorAndRunRefuseUnreachableModels: doctor exits non-zero and says
// what to do when a study's model cannot be reached; run refuses the same
// study before it creates a sandbox or writes anything.
func TestDoctorAndRunRefuseUnreachableModels(t *testing.T) {
	tests := []struct {
		name   string
		key    string // OPENAI_API_KEY
		model  func(t *testing.T) string
		ok     bool
		advice []string
	}{
		{name: "ollama host down", model: func(t *testing.T) string { return ollamaModel(downHost(t)) },
			advice: []string{"does not answer", "ollama serve", "ollama pull qwen3:8b"}},
		{name: "ollama model not pulled", model: func(t *testing.T) string { return ollamaModel(ollamaTags(t, "llama3.1:latest")) },
			advice: []string{"does not hold model qwen3:8b", "ollama pull qwen3:8b"}},
		{name: "key unset", model: func(*testing.T) string { return openaiModel },
			advice: []string{"OPENAI_API_KEY is not set", "export OPENAI_API_KEY"}},
		{name: "ollama host up with the model", model: func(t *testing.T) string { return ollamaModel(ollamaTags(t, "qwen3:8b")) }, ok: true},
		{name: "key set", key: "sk-doctor-present-0000", model: func(t *testing.T) string { return openaiAt(modelList(t, "gpt-4o-mini")) }, ok: true},
		{name: "model not listed", key: "sk-doctor-present-0000", model: func(t *testing.T) string { return openaiAt(modelList(t, "gpt-4o")) },
			advice: []string{"does not list model gpt-4o-mini", "lists gpt-4o"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv("OPENAI_API_KEY", tt.key)
			file := writeStudy(t, studyFile("local", tt.model(t)))
			code, stdout, stderr := killchain("doctor", file)
			if (code == 0) != tt.ok {
				t.Fatalf("doctor exit %d, want ok=%v\n%s%s", code, tt.ok, stdout, stderr)
			}
			for _, a := range tt.advice {
				if !strings.Contains(stdout, a) {
					t.Errorf("doctor output lacks %q:\n%s", a, stdout)
				}
			}
			if tt.ok {
				if !strings.Contains(stdout, "model m") || strings.Contains(stdout, "MISSING\t") {
					t.Errorf("doctor output:\n%s", stdout)
				}
				if tt.key != "" && strings.Contains(stdout+stderr, tt.key) {
					t.Error("doctor printed the key")
				}
				return
			}
			if !strings.Contains(stderr, "cannot be reached") {
				t.Errorf("doctor stderr %q does not say the study cannot run", stderr)
			}

			// A docker study too: the models are checked before any backend.
			for _, sb := range []string{"local", "docker"} {
				file := writeStudy(t, studyFile(sb, tt.model(t)))
				out := filepath.Join(t.TempDir(), "out")
				code, stdout, stderr := killchain("run", "-q", "--output", out, file)
				if code == 0 {
					t.Fatalf("%s: run started a study whose model cannot be reached", sb)
				}
				if !strings.Contains(stderr, "cannot start") || !strings.Contains(stderr, tt.advice[len(tt.advice)-1]) {
					t.Errorf("%s: run said %q%q, want the doctor's advice", sb, stdout, stderr)
				}
				if _, err := os.Stat(out); !os.IsNotExist(err) {
					t.Errorf("%s: run refused but created %s (%v)", sb, out, err)
				}
			}
		})
	}
}

// TestDoctorWithoutStudy says plainly that no hosted provider is reachable
// when no key is set.
func TestDoctorWithoutStudy(t *testing.T) {
	for _, k := range []string{"OPENAI_API_KEY", "ANTHROPIC_API_KEY", "DEEPSEEK_API_KEY"} {
		t.Setenv(k, "")
	}
	code, stdout, stderr := killchain("doctor")
	if code != 0 {
		t.Fatalf("doctor exit %d\n%s%s", code, stdout, stderr)
	}
	for _, want := range []string{"no hosted provider is reachable", "export OPENAI_API_KEY", "export ANTHROPIC_API_KEY", "export DEEPSEEK_API_KEY"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("doctor output lacks %q:\n%s", want, stdout)
		}
	}
}
