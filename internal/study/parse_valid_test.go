package study

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/killchain/killchain/internal/defense/kinds"
)

func TestParseValid(t *testing.T) {
	src := header + `grid "g" {
  tasks      = ["memory_poison"]
  models     = ["a"]
  conditions = ["plain", "hack"]
}
`
	s, diags := Parse("t.hcl", []byte(src))
	if len(diags) > 0 {
		t.Fatalf("diagnostics: %v", diagKeys(diags))
	}
	if s.File != "t.hcl" || string(s.Source) != src {
		t.Errorf("file %q / source not kept", s.File)
	}
	checks := []struct {
		name      string
		got, want any
	}{
		{"name", s.Name, "t"},
		{"concurrency", s.Concurrency, DefaultConcurrency},
		{"output", s.Output, "runs/t"},
		{"sandbox", s.Sandbox, "docker"},
		{"runtime", s.Runtime, "runc"},
		{"max_turns", s.MaxTurns, 10},
		{"heavy_concurrency", s.HeavyConcurrency, 0},
		{"warm_pool unset", s.WarmPoolSize(), min(WarmPoolUnset, DefaultConcurrency)},
		{"attempts", s.Attempts, DefaultAttempts},
		{"retry_backoff", s.RetryBackoff, DefaultRetryBackoff},
		{"classifier", s.Classifier, ""},
		{"allow_host_shell", s.AllowHostShell, false},
		{"models", len(s.Models), 3},
		{"conditions", len(s.Conditions), 3},
		{"defenses", len(s.Defenses), 6},
		{"grid batch", s.Grids[0].Batch, "g"},
		{"grid repeats", s.Grids[0].Repeats, 1},
		{"grid defenses", strings.Join(s.Grids[0].Defenses, ","), "none"},
		{"grid variants", s.Grids[0].Variants == nil, true},
		{"model max_tokens", s.Models[0].MaxTokens, 2048},
		{"model timeout", s.Models[0].Timeout, DefaultTimeout},
		{"model seed", s.Models[0].Seed == nil, true},
		{"openai api", s.Models[2].API, "chat"},
		{"openai name", s.Models[2].ModelName, "gpt-4o-mini"},
	}
	for _, c := range checks {
		if c.got != c.want {
			t.Errorf("%s = %v, want %v", c.name, c.got, c.want)
		}
	}
	narrate, ok := s.Condition(CondNarrate)
	if !ok || !narrate.Payload || narrate.Instructions == "" {
		t.Errorf("narrate = %+v, want a payload condition with instructions", narrate)
	}
	if plain, _ := s.Condition(CondPlain); plain.Payload {
		t.Error("plain has a payload")
	}
}

func TestParseFullAttributes(t *testing.T) {
	src := `study "full" {
  seed        = 7
  concurrency = 3
  output      = "out/full"
  sandbox     = "local"
  classifier  = "judge"
  memory_mb   = 512
  cpus        = 1.5
  pids_limit  = 128
  runtime     = "runsc"
  max_turns   = 6

  heavy_concurrency = 3
  warm_pool         = 0
  attempts          = 4
  retry_backoff     = "250ms"
  allow_host_shell  = true
}
model "judge" {
  provider = "scripted"
  policy   = "classifier"
}
model "o" {
  provider         = "openai"
  name             = "gpt-5-mini"
  api              = "responses"
  api_key_env      = "KEY"
  temperature      = 0.5
  max_tokens       = 512
  seed             = 3
  reasoning_effort = "low"
  timeout          = "45s"
  max_retries      = 1
  max_concurrency  = 2
}
model "c" {
  provider        = "anthropic"
  name            = "claude-haiku-4-5"
  thinking        = true
  thinking_budget = 1024
}
model "l" {
  provider = "openai_compatible"
  name     = "qwen3-8b"
  base_url = "http://gpu:8000/v1"
}
model "q" {
  provider = "ollama"
  name     = "qwen3:8b"
  host     = "http://gpu:11434"
}
condition "quiet" {
  payload      = true
  instructions = "Answer briefly."
}
defense "strict" {
  kind     = "write_filter"
  patterns = ["(?i)send .* to"]
}
defense "marks" {
  kind     = "spotlighting"
  datamark = true
}
defense "judge2" { kind = "pi_detector" }
grid "g" {
  batch      = "b1"
  tasks      = ["propagation"]
  variants   = ["direct"]
  pairs      = [["o", "c"]]
  conditions = ["quiet"]
  defenses   = ["strict", "marks", "judge2"]
  repeats    = 2
}
`
	s, diags := Parse("full.hcl", []byte(src))
	if len(diags) > 0 {
		t.Fatalf("diagnostics: %v", diagKeys(diags))
	}
	o, _ := s.Model("o")
	c, _ := s.Model("c")
	judge2, _ := s.Defense("judge2")
	pi, _ := s.Defense(kinds.PIDetector)
	strict, _ := s.Defense("strict")
	marks, _ := s.Defense("marks")
	quiet, _ := s.Condition("quiet")
	checks := []struct {
		name      string
		got, want any
	}{
		{"seed", s.Seed, int64(7)},
		{"concurrency", s.Concurrency, 3},
		{"output", s.Output, "out/full"},
		{"sandbox", s.Sandbox, "local"},
		{"classifier", s.Classifier, "judge"},
		{"memory_mb", s.MemoryMB, 512},
		{"cpus", s.CPUs, 1.5},
		{"pids_limit", s.PidsLimit, 128},
		{"runtime", s.Runtime, "runsc"},
		{"max_turns", s.MaxTurns, 6},
		{"heavy_concurrency", s.HeavyConcurrency, 3},
		{"warm_pool off", s.WarmPoolSize(), 0},
		{"attempts", s.Attempts, 4},
		{"retry_backoff", s.RetryBackoff, 250 * time.Millisecond},
		{"allow_host_shell", s.AllowHostShell, true},
		{"api", o.API, "responses"},
		{"temperature", o.Temperature, 0.5},
		{"max_tokens", o.MaxTokens, 512},
		{"model seed", *o.Seed, int64(3)},
		{"reasoning_effort", o.ReasoningEffort, "low"},
		{"timeout", o.Timeout, 45 * time.Second},
		{"max_retries", o.MaxRetries, 1},
		{"max_concurrency", o.MaxConcurrency, 2},
		{"api_key_env", o.APIKeyEnv, "KEY"},
		{"thinking", c.Thinking, true},
		{"thinking_budget", c.ThinkingBudget, 1024},
		{"anthropic api", c.API, ""},
		{"declared pi_detector classifier", judge2.Classifier, "judge"},
		{"built-in pi_detector classifier", pi.Classifier, "judge"},
		{"patterns", strings.Join(strict.Patterns, ","), "(?i)send .* to"},
		{"datamark", marks.Datamark, true},
		{"condition payload", quiet.Payload, true},
		{"condition instructions", quiet.Instructions, "Answer briefly."},
		{"pairs", fmt.Sprint(s.Grids[0].Pairs), "[[o c]]"},
		{"repeats", s.Grids[0].Repeats, 2},
		{"batch", s.Grids[0].Batch, "b1"},
	}
	for _, c := range checks {
		if c.got != c.want {
			t.Errorf("%s = %v, want %v", c.name, c.got, c.want)
		}
	}
}
