package cli

import (
	"strings"
	"testing"
)

// TestPlanAndDoctorWarnAboutMaxTokens: plan and doctor warn, without
// failing, when a model's max_tokens leaves too little room beside its
// thinking, since replies cut by the limit end as truncated errors.
func TestPlanAndDoctorWarnAboutMaxTokens(t *testing.T) {
	t.Setenv("ANTHROPIC_API_KEY", "sk-ant-tokens-0000")
	t.Setenv("OPENAI_API_KEY", "sk-tokens-0000")
	tests := []struct {
		name  string
		model func(t *testing.T) string
		warn  []string // nil: no warning
	}{
		{name: "anthropic budget above max_tokens", model: func(t *testing.T) string {
			return `model "m" {
  provider        = "anthropic"
  base_url        = "` + modelList(t, "claude-sonnet-4-5") + `"
  name            = "claude-sonnet-4-5"
  thinking        = true
  thinking_budget = 4096
  max_tokens      = 512
}`
		}, warn: []string{"max_tokens 512", "thinking budget 4096", "truncated errors"}},
		{name: "ollama budget above max_tokens", model: func(t *testing.T) string {
			return `model "m" {
  provider        = "ollama"
  name            = "qwen3:8b"
  host            = "` + ollamaTags(t, "qwen3:8b") + `"
  thinking        = true
  thinking_budget = 4096
  max_tokens      = 2048
}`
		}, warn: []string{"max_tokens 2048 is not above its thinking budget 4096", "truncated errors"}},
		{name: "reasoning effort with small max_tokens", model: func(t *testing.T) string {
			return `model "m" {
  provider         = "openai"
  base_url         = "` + modelList(t, "gpt-5-mini") + `/v1"
  name             = "gpt-5-mini"
  api              = "responses"
  thinking         = true
  reasoning_effort = "high"
  max_tokens       = 512
}`
		}, warn: []string{"max_tokens 512 is below 1024", "reasoning_effort high", "truncated errors"}},
		{name: "plain model", model: func(t *testing.T) string { return openaiAt(modelList(t, "gpt-4o-mini")) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			file := writeStudy(t, studyFile("local", tt.model(t)))
			code, stdout, stderr := killchain("plan", file)
			if code != 0 {
				t.Fatalf("plan exit %d\n%s%s", code, stdout, stderr)
			}
			checkWarning(t, "plan stderr", stderr, "warning: model m: ", tt.warn)
			if strings.Contains(stdout, "warning") {
				t.Errorf("plan printed a warning into the plan:\n%s", stdout)
			}

			code, stdout, stderr = killchain("doctor", file)
			if code != 0 {
				t.Fatalf("doctor exit %d; a warning must not fail it\n%s%s", code, stdout, stderr)
			}
			checkWarning(t, "doctor output", stdout, "warning", tt.warn)
			if tt.model(t) != "" && !strings.Contains(stdout, "no price: its runs are recorded at $0") {
				t.Errorf("doctor does not warn that hosted model m has no price:\n%s", stdout)
			}
		})
	}
}

func checkWarning(t *testing.T, where, out, marker string, want []string) {
	t.Helper()
	if want == nil {
		if strings.Contains(out, "max_tokens") {
			t.Errorf("%s warns about max_tokens:\n%s", where, out)
		}
		return
	}
	if !strings.Contains(out, marker) {
		t.Errorf("%s lacks %q:\n%s", where, marker, out)
	}
	for _, w := range want {
		if !strings.Contains(out, w) {
			t.Errorf("%s lacks %q:\n%s", where, w, out)
		}
	}
}
