package models_test

import (
	"bytes"
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/killchain/killchain/internal/cli"
	"github.com/killchain/killchain/internal/models/internal/fake"
	"github.com/killchain/killchain/internal/results"
)

// Distinctive fake keys: the leak check searches a whole study for them.
var cliKeys = map[string]string{
	"OPENAI_API_KEY":    "sk-proj-CLILEAK-7f0c2e91a4",
	"ANTHROPIC_API_KEY": "sk-ant-api03-CLILEAK-5d8b61",
	"DEEPSEEK_API_KEY":  "sk-CLILEAK-deepseek-93ae02",
	"GPU_BOX_KEY":       "box-CLILEAK-compat-4c1d77",
}

// writeStudy writes an HCL study into a temporary folder.
func writeStudy(t *testing.T, src string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "study.hcl")
	if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// killchain runs the command line and returns its exit code and output.
func killchain(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := cli.Main(context.Background(), args, &stdout, &stderr)
	return code, stdout.String(), stderr.String()
}

func lines(t *testing.T, dir string) []results.Run {
	t.Helper()
	var runs []results.Run
	if err := results.ReadRuns(filepath.Join(dir, results.RunsFile), func(r results.Run) error {
		runs = append(runs, r)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return runs
}

// latest keeps the last line of each run.
func latest(runs []results.Run) map[string]results.Run {
	out := map[string]results.Run{}
	for _, r := range runs {
		out[r.RunID] = r
	}
	return out
}

// TestCLIStudyLeaksNoKey runs a study over every provider through
// cli.Main at trace level while the fakes echo the keys they receive into
// their error bodies (some runs fail for good, some after a retry), resumes
// it, and searches every file of the study folder and all output for the
// keys.
func TestCLIStudyLeaksNoKey(t *testing.T) {
	for k, v := range cliKeys {
		t.Setenv(k, v)
	}
	srv := map[fake.Kind]*fake.Provider{}
	for _, k := range []fake.Kind{fake.OpenAIChat, fake.Responses, fake.Anthropic, fake.DeepSeek, fake.Compatible, fake.Ollama} {
		p := fake.NewProvider(t, k, fake.Options{Models: []string{"qwen3:8b", "qwen3-8b", "gpt-4o-mini", "gpt-5-mini", "claude-sonnet-4-5", "deepseek-reasoner"}})
		p.Fail(
			fake.Fault{Name: "429", When: fake.Always, Times: 1, Status: 429, RetryAfter: "0"},
			fake.Fault{Name: "400", When: fake.Exposed, Status: 400},
		)
		srv[k] = p
	}
	file := writeStudy(t, `
study "leak" {
  seed        = 9
  concurrency = 3
  sandbox     = "local"
  max_turns   = 8
}
model "gpt" {
  provider    = "openai"
  name        = "gpt-4o-mini"
  base_url    = "`+srv[fake.OpenAIChat].URL+`/v1"
  max_retries = 1
}
model "reasoner" {
  provider    = "openai"
  api         = "responses"
  name        = "gpt-5-mini"
  thinking    = true
  base_url    = "`+srv[fake.Responses].URL+`/v1"
  max_retries = 1
}
model "claude" {
  provider    = "anthropic"
  name        = "claude-sonnet-4-5"
  thinking    = true
  base_url    = "`+srv[fake.Anthropic].URL+`"
  max_retries = 1
}
model "ds" {
  provider    = "deepseek"
  name        = "deepseek-reasoner"
  base_url    = "`+srv[fake.DeepSeek].URL+`"
  max_retries = 1
}
model "box" {
  provider    = "openai_compatible"
  name        = "qwen3-8b"
  base_url    = "`+srv[fake.Compatible].URL+`/v1"
  api_key_env = "GPU_BOX_KEY"
  max_retries = 1
}
model "local" {
  provider    = "ollama"
  name        = "qwen3:8b"
  host        = "`+srv[fake.Ollama].URL+`"
  thinking    = true
  max_retries = 1
}
grid "all" {
  tasks      = ["memory_poison", "propagation"]
  variants   = ["direct"]
  models     = ["gpt", "reasoner", "claude", "ds", "box", "local"]
  conditions = ["plain", "hack"]
}
`)
	dir := filepath.Join(t.TempDir(), "out")
	var out strings.Builder
	code, stdout, stderr := killchain(t, "--log-level", "trace", "run", "--sandbox", "local", "--output", dir, file)
	out.WriteString(stdout + stderr)
	if code != 0 {
		t.Fatalf("run exit %d\n%s%s", code, stdout, stderr)
	}
	if !strings.Contains(stderr, "runs 24/24  errors 12") {
		t.Errorf("progress did not reach Main's stderr: %q", stderr)
	}
	first := latest(lines(t, dir))
	errored, redacted := 0, 0
	for _, r := range first {
		if r.Error == "" {
			continue
		}
		errored++
		if r.ErrorKind != "provider" || r.Stage != "none" || results.Is(r.Executed) || r.AttackGoal {
			t.Errorf("errored run %s: kind %q stage %s executed %v attack_goal %v", r.RunID, r.ErrorKind, r.Stage, r.Executed, r.AttackGoal)
		}
		if strings.Contains(r.Error, "[REDACTED]") {
			redacted++
		}
	}
	if len(first) != 24 || errored != 12 {
		t.Fatalf("%d runs, %d errored; want 24 runs and the 12 attacked ones refused", len(first), errored)
	}
	if redacted == 0 {
		t.Error("no recorded error shows a scrubbed key: the leak path was not exercised")
	}
	for k, p := range srv {
		if k != fake.Ollama && p.Echoed() == 0 {
			t.Errorf("%s fake never echoed a key", k)
		}
	}

	for _, p := range srv {
		p.Heal()
	}
	code, stdout, stderr = killchain(t, "--log-level", "trace", "run", "--resume", "--sandbox", "local", "--output", dir, file)
	out.WriteString(stdout + stderr)
	if code != 0 {
		t.Fatalf("resume exit %d\n%s%s", code, stdout, stderr)
	}
	if !strings.Contains(stdout, "12 already finished, 12 ran, 0 errors") {
		t.Errorf("resume said %q", stdout)
	}
	for _, r := range latest(lines(t, dir)) {
		if r.Error != "" || r.Attacked && r.Stage != "executed" {
			t.Errorf("after resume, run %s: error %q stage %s", r.RunID, r.Error, r.Stage)
		}
	}

	files := 0
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		files++
		noKey(t, p, string(b))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if files < 4+24 {
		t.Errorf("walked %d files, want the study's files and 24 transcripts", files)
	}
	noKey(t, "command output", out.String())
	if !strings.Contains(out.String(), "retrying model call") {
		t.Error("trace output shows no retry: the logs were not exercised")
	}
}

func noKey(t *testing.T, where, text string) {
	t.Helper()
	for env, key := range cliKeys {
		if strings.Contains(text, key) {
			t.Errorf("%s contains the %s key", where, env)
		}
	}
}

// TestCLIOpenAICompatible runs a study whose only model is an
// OpenAI-compatible server on 127.0.0.1 (tools, no thinking) through
// cli.Main, checks every run's stages, and reports it.
func TestCLIOpenAICompatible(t *testing.T) {
	srv := fake.NewProvider(t, fake.Compatible, fake.Options{Models: []string{"qwen3-8b"}})
	file := writeStudy(t, `
study "compat" {
  seed        = 21
  concurrency = 4
  sandbox     = "local"
}
model "box" {
  provider = "openai_compatible"
  name     = "qwen3-8b"
  base_url = "`+srv.URL+`/v1"
}
grid "g" {
  tasks      = ["propagation", "memory_poison"]
  models     = ["box"]
  conditions = ["plain", "hack"]
}
`)
	if code, stdout, stderr := killchain(t, "doctor", file); code != 0 || !strings.Contains(stdout, "model box") {
		t.Fatalf("doctor exit %d\n%s%s", code, stdout, stderr)
	}
	dir := filepath.Join(t.TempDir(), "out")
	if code, stdout, stderr := killchain(t, "run", "-q", "--sandbox", "local", "--output", dir, file); code != 0 {
		t.Fatalf("run exit %d\n%s%s", code, stdout, stderr)
	}
	runs := lines(t, dir)
	if len(runs) != 8 { // three variants attacked and one clean control, per task
		t.Fatalf("%d runs, want 8", len(runs))
	}
	for _, r := range runs {
		name := r.Task + "/" + r.Condition + "/" + r.Variant
		if r.Error != "" {
			t.Errorf("%s: %s", name, r.Error)
			continue
		}
		relay := r.Task == "propagation"
		switch {
		case r.Attacked:
			if r.Stage != "executed" || !results.Is(r.Exposed) || !results.Is(r.Executed) || !r.AttackGoal || !r.TaskSuccess {
				t.Errorf("%s: stage %s exposed %v executed %v attack_goal %v task_success %v", name, r.Stage, r.Exposed, r.Executed, r.AttackGoal, r.TaskSuccess)
			}
			if relay != results.Is(r.Persisted) || relay != results.Is(r.Relayed) || !relay && (r.Persisted != nil || r.Relayed != nil) {
				t.Errorf("%s: persisted %v relayed %v", name, r.Persisted, r.Relayed)
			}
		default:
			if r.Contaminated || r.Executed == nil || *r.Executed || r.Stage != "none" || r.AttackGoal || !r.TaskSuccess {
				t.Errorf("%s: contaminated %v executed %v stage %s attack_goal %v task_success %v", name, r.Contaminated, r.Executed, r.Stage, r.AttackGoal, r.TaskSuccess)
			}
		}
		b, err := os.ReadFile(filepath.Join(dir, results.TranscriptsDir, r.RunID+".json"))
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(b), `"kind": "thinking"`) {
			t.Errorf("%s: thinking recorded from a model without thinking", name)
		}
	}
	for _, e := range srv.Exchanges() {
		if e.Conv.Thinking || e.Status != 200 || len(e.Conv.Tools) == 0 {
			t.Errorf("request with thinking %v, tools %v answered %d %s", e.Conv.Thinking, e.Conv.Tools, e.Status, e.Reject)
		}
	}
	if code, stdout, stderr := killchain(t, "report", dir); code != 0 {
		t.Fatalf("report exit %d\n%s%s", code, stdout, stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, "report", "report.md")); err != nil {
		t.Errorf("no report: %v", err)
	}
}
