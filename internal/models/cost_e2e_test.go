package models_test

import (
	"encoding/csv"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/killchain/killchain/internal/cost"
	"github.com/killchain/killchain/internal/models/internal/fake"
	"github.com/killchain/killchain/internal/report"
	"github.com/killchain/killchain/internal/results"
)

// costStudy is a study of 16 runs against an OpenAI-compatible server at
// url with a price, and limit as its cost_limit ("" for none).
func costStudy(url, limit string) string {
	lim := ""
	if limit != "" {
		lim = "  cost_limit  = " + limit + "\n"
	}
	return `
study "cost" {
  seed        = 4
  concurrency = 2
  sandbox     = "local"
  max_turns   = 8
` + lim + `}
model "box" {
  provider    = "openai_compatible"
  name        = "qwen3-8b"
  base_url    = "` + url + `/v1"
  api_key_env = "GPU_BOX_KEY"
  max_retries = 0
  price {
    input     = 2.5
    output    = 10
  }
}
model "ref" {
  provider = "scripted"
  policy   = "compliant"
}
grid "g" {
  tasks      = ["memory_poison", "tool_poison"]
  variants   = ["direct"]
  models     = ["box", "ref"]
  conditions = ["plain", "hack"]
  repeats    = 2
}
`
}

func sumCost(runs []results.Run) (usd float64, in, out int) {
	for _, r := range runs {
		usd += r.Cost
		in += r.InputTokens
		out += r.OutputTokens
	}
	return usd, in, out
}

// TestCostLimitStopsAndResumes runs a priced study through an
// OpenAI-compatible server: the full study's cost is the sum of its runs'
// prices; the same study under a limit below that stops starting runs,
// exits 3, records whole runs only and passes the limit by no more than
// the runs in flight can cost; --resume with a higher limit finishes it,
// and the report's totals are the sums over runs.jsonl.
func TestCostLimitStopsAndResumes(t *testing.T) {
	t.Setenv("GPU_BOX_KEY", "box-cost-key-0001")
	srv := fake.NewProvider(t, fake.Compatible, fake.Options{Models: []string{"qwen3-8b"}})

	full := filepath.Join(t.TempDir(), "full")
	code, stdout, stderr := killchain(t, "run", "-q", "--output", full, writeStudy(t, costStudy(srv.URL, "")))
	if code != 0 {
		t.Fatalf("run exit %d\n%s%s", code, stdout, stderr)
	}
	runs := lines(t, full)
	total, _, _ := sumCost(runs)
	if len(runs) != 16 || total <= 0 {
		t.Fatalf("%d runs costing %g", len(runs), total)
	}
	for _, r := range runs {
		want := (2.5*float64(r.InputTokens) + 10*float64(r.OutputTokens)) / 1e6
		if r.ModelA == "ref" {
			want = 0
		}
		if math.Abs(r.Cost-want) > 1e-6 || r.Error != "" {
			t.Errorf("run %s (%s): cost %g for %d in, %d out; want %g", r.RunID, r.ModelA, r.Cost, r.InputTokens, r.OutputTokens, want)
		}
	}
	if !strings.Contains(stdout, "cost: $") {
		t.Errorf("the summary does not say what the study spent:\n%s", stdout)
	}

	t.Run("plan estimates from prompt sizes, or from the earlier folder", func(t *testing.T) {
		file := writeStudy(t, costStudy(srv.URL, ""))
		code, stdout, stderr := killchain(t, "plan", file)
		if code != 0 || !strings.Contains(stdout, "estimate (not a measurement)") || !strings.Contains(stdout, "prompt sizes") ||
			!strings.Contains(stdout, "scripted: $0") {
			t.Errorf("plan exit %d:\n%s%s", code, stdout, stderr)
		}
		code, stdout, stderr = killchain(t, "plan", "--estimate-from", full, file)
		want := "total ~" + cost.Dollars(total)
		if code != 0 || !strings.Contains(stdout, "finished runs in "+full) || !strings.Contains(stdout, want) {
			t.Errorf("plan --estimate-from exit %d, want %q:\n%s%s", code, want, stdout, stderr)
		}
	})

	t.Run("a limit below plan's guess of one run stops before any, saying the figure is a guess", func(t *testing.T) {
		dir := filepath.Join(t.TempDir(), "tiny")
		code, stdout, stderr := killchain(t, "run", "-q", "--output", dir, "--cost-limit", "0.0000001", writeStudy(t, costStudy(srv.URL, "")))
		if code != 3 || !strings.Contains(stdout, "$0 spent") || !strings.Contains(stdout, "not a measurement") {
			t.Errorf("exit %d, want 3 and the estimate called one:\n%s%s", code, stdout, stderr)
		}
	})

	limit := total / 2
	dir := filepath.Join(t.TempDir(), "limited")
	file := writeStudy(t, costStudy(srv.URL, strconv.FormatFloat(limit, 'f', 8, 64)))
	code, stdout, stderr = killchain(t, "run", "-q", "--output", dir, file)
	if code != 3 {
		t.Fatalf("run under a limit of %g (full cost %g): exit %d, want 3\n%s%s", limit, total, code, stdout, stderr)
	}
	if !strings.Contains(stdout, "cost limit") || !strings.Contains(stdout, "--resume") {
		t.Errorf("the stop does not say why or how to go on:\n%s", stdout)
	}
	part := lines(t, dir)
	spent, _, _ := sumCost(part)
	if len(part) == 0 || len(part) >= 16 {
		t.Fatalf("%d of 16 runs recorded under the limit", len(part))
	}
	t.Logf("%d of 16 runs recorded, %g spent under a limit of %g", len(part), spent, limit)
	// The limit holds up to what the runs in flight cost beyond their
	// reservations: a run of a kind not yet measured reserves a guess, and
	// the runs start interleaved (memory_poison's cost 26 times
	// tool_poison's here). So: at most the study's concurrency (2) times
	// its dearest run past the limit, and never a run started once the
	// limit was reached with none in flight.
	dearest := 0.0
	for _, r := range runs {
		dearest = max(dearest, r.Cost)
	}
	if spent > limit+2*dearest {
		t.Errorf("spent %g under a limit of %g: more than two runs (each at most %g) past it", spent, limit, dearest)
	}
	for _, r := range part {
		if r.Error != "" || r.Stage == "" {
			t.Errorf("run %s recorded half: error %q stage %q", r.RunID, r.Error, r.Stage)
		}
		if _, err := os.Stat(filepath.Join(dir, results.TranscriptsDir, r.RunID+".json")); err != nil {
			t.Errorf("run %s has no transcript: %v", r.RunID, err)
		}
	}

	code, stdout, stderr = killchain(t, "run", "-q", "--resume", "--cost-limit", "1000", dir)
	if code != 0 {
		t.Fatalf("resume exit %d\n%s%s", code, stdout, stderr)
	}
	done := lines(t, dir)
	usd, in, out := sumCost(done)
	if len(done) != 16 || math.Abs(usd-total) > total*0.02 {
		t.Errorf("after resume: %d runs costing %g; the full study cost %g", len(done), usd, total)
	}

	if err := report.Write(dir, report.Options{NoFigures: true, NoHTML: true}); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(filepath.Join(dir, "report", report.CostModelsFile))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	byModel := map[string][]string{}
	for _, row := range rows[1:] {
		byModel[row[0]] = row
	}
	all := byModel["all"]
	if all == nil {
		t.Fatalf("no all row in %v", rows)
	}
	if got, _ := strconv.ParseFloat(all[9], 64); math.Abs(got-usd) > 1e-5 {
		t.Errorf("report total %s, runs.jsonl sums %g", all[9], usd)
	}
	if all[2] != strconv.Itoa(in) || all[5] != strconv.Itoa(out) {
		t.Errorf("report tokens %s in, %s out; runs.jsonl sums %d, %d", all[2], all[5], in, out)
	}
	if ref := byModel["ref"]; ref == nil || ref[9] != "0.000000" || ref[10] != "scripted: $0" {
		t.Errorf("the scripted model's row %v does not say it cost nothing", ref)
	}
	if box := byModel["box"]; box == nil || !strings.Contains(box[10], "$2.50 in") {
		t.Errorf("the priced model's row %v does not give its price", box)
	}
}

// TestFatalAnswerStopsTheStudy: a server that refuses the key (401) or
// lacks the model (404) stops the study after the runs already asking,
// never retried, with the key's variable or the model and the server's
// own words named once ("provider error: provider error:" no more).
func TestFatalAnswerStopsTheStudy(t *testing.T) {
	tests := []struct {
		name   string
		status int
		want   []string
	}{
		{"401", 401, []string{"authentication refused: check the API key in GPU_BOX_KEY", "The API key given is not valid."}},
		{"404", 404, []string{"the server has no model qwen3-8b", "No such model on this server."}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv("GPU_BOX_KEY", "box-fatal-key-0002")
			srv := fake.NewProvider(t, fake.Compatible, fake.Options{Models: []string{"qwen3-8b"}})
			srv.Fail(fake.Fault{Name: tt.name, When: fake.Always, Status: tt.status})
			dir := filepath.Join(t.TempDir(), "out")
			code, stdout, stderr := killchain(t, "run", "-q", "--output", dir, writeStudy(t, costStudy(srv.URL, "")))
			if code != 1 {
				t.Fatalf("exit %d, want 1\n%s%s", code, stdout, stderr)
			}
			for _, w := range append(tt.want, "no later run could succeed", "--resume") {
				if !strings.Contains(stderr, w) {
					t.Errorf("stderr lacks %q:\n%s", w, stderr)
				}
			}
			if strings.Contains(stderr, "provider error: provider error") {
				t.Errorf("stderr repeats the error kind:\n%s", stderr)
			}
			if n := len(srv.Exchanges()); n > 2 {
				t.Errorf("the server was asked %d times; a study of concurrency 2 stops after 2", n)
			}
			for _, r := range lines(t, dir) {
				if r.ModelA == "box" && (r.ErrorKind != "provider" || r.Attempts != 1) {
					t.Errorf("run %s: kind %q after %d attempts", r.RunID, r.ErrorKind, r.Attempts)
				}
			}
		})
	}
}

// TestRateLimitsCounted: 429 answers are counted on the run that met them,
// in the progress line and in the report's cost table.
func TestRateLimitsCounted(t *testing.T) {
	t.Setenv("GPU_BOX_KEY", "box-429-key-0003")
	srv := fake.NewProvider(t, fake.Compatible, fake.Options{Models: []string{"qwen3-8b"}})
	srv.Fail(fake.Fault{Name: "429", When: fake.Always, Times: 3, Status: 429, RetryAfter: "0"})
	dir := filepath.Join(t.TempDir(), "out")
	file := writeStudy(t, strings.Replace(costStudy(srv.URL, ""), "max_retries = 0", "max_retries = 4", 1))
	code, stdout, stderr := killchain(t, "run", "--output", dir, file)
	if code != 0 {
		t.Fatalf("exit %d\n%s%s", code, stdout, stderr)
	}
	n := 0
	for _, r := range lines(t, dir) {
		n += r.RateLimited
		if r.Error != "" {
			t.Errorf("run %s errored: %s", r.RunID, r.Error)
		}
	}
	if n != 3 {
		t.Errorf("runs.jsonl counts %d rate limits, the server sent 3", n)
	}
	if !strings.Contains(stderr, "rate-limited 3") || !strings.Contains(stdout, "3 rate-limit answers (429)") {
		t.Errorf("the progress line or summary does not count the rate limits:\n%s%s", stdout, stderr)
	}
}
