package models_test

import (
	"encoding/csv"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

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
// exits 3, records whole runs only and spends no more than the limit
// allows; --resume with a higher limit finishes it, and the report's
// totals are the sums over runs.jsonl.
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
	if spent > limit*1.5 {
		t.Errorf("spent %g under a limit of %g", spent, limit)
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
	if box := byModel["box"]; box == nil || !strings.Contains(box[10], "$2.5 in") {
		t.Errorf("the priced model's row %v does not give its price", box)
	}
}
