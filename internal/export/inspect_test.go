package export

import (
	"archive/zip"
	"bytes"
	"encoding/json"
	"flag"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/killchain/killchain/internal/results"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// fixture is a small study folder: five runs of the smoke study on the
// local backend (scripted agents), their transcripts without the sandbox
// states, edited by hand where the scripted agents show nothing: a memory
// relay that reached Executed (tried twice, and spending tokens), a
// delegation relay whose call pi_detector blocked, a single run that
// noticed the canary (one of its thinking steps redacted, spending tokens
// and reasoning tokens), a run that errored with a provider error, and a
// reward-hack run. Its manifest plans these five runs.
const fixture = "testdata/study"

// exportFixture exports the fixture in format and returns the logs' paths.
func exportFixture(t *testing.T, format string) []string {
	t.Helper()
	paths, err := Inspect(t.Context(), fixture, InspectOptions{Out: t.TempDir(), Format: format})
	if err != nil {
		t.Fatal(err)
	}
	return paths
}

// member is one member of a .eval file.
type member struct {
	Name string
	Data []byte
}

// readEval returns a .eval file's members in the order they were written.
func readEval(t *testing.T, path string) []member {
	t.Helper()
	z, err := zip.OpenReader(path)
	if err != nil {
		t.Fatal(err)
	}
	defer z.Close()
	var out []member
	for _, f := range z.File {
		rc, err := f.Open()
		if err != nil {
			t.Fatal(err)
		}
		data, err := io.ReadAll(rc)
		rc.Close()
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, member{f.Name, data})
	}
	return out
}

// TestInspectGolden: the export of the fixture study, every member of
// every log in the order written, matches testdata/golden.txt (-update
// rewrites it).
func TestInspectGolden(t *testing.T) {
	var b bytes.Buffer
	for _, p := range exportFixture(t, FormatEval) {
		b.WriteString("== " + filepath.Base(p) + "\n")
		for _, m := range readEval(t, p) {
			var pretty bytes.Buffer
			if err := json.Indent(&pretty, m.Data, "", " "); err != nil {
				t.Fatalf("%s %s: %v", p, m.Name, err)
			}
			b.WriteString("-- " + m.Name + "\n" + pretty.String() + "\n")
		}
	}
	golden := filepath.Join("testdata", "golden.txt")
	if *update {
		if err := os.WriteFile(golden, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(b.Bytes(), want) {
		t.Errorf("export differs from %s; run go test ./internal/export -run TestInspectGolden -update and review the diff", golden)
	}
}

// TestInspectLayout: one log per task and model or pair, named as Inspect
// names its logs, with Inspect's members in the order its writer puts
// them, each sample's member named by its id and epoch.
func TestInspectLayout(t *testing.T) {
	paths := exportFixture(t, FormatEval)
	if len(paths) != 5 {
		t.Fatalf("%d logs, want 5 (one per task and model or pair)", len(paths))
	}
	// {created}_{task}_{task_id}.eval with _ / : + cleaned to -, the
	// created time a full ISO timestamp (Inspect lists a name by it).
	name := regexp.MustCompile(`^\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}-00-00_[a-z-]+_[0-9A-Za-z]{22}\.eval$`)
	for _, p := range paths {
		if !name.MatchString(filepath.Base(p)) {
			t.Errorf("%s: not named as Inspect names a log", filepath.Base(p))
		}
		ms := readEval(t, p)
		var names []string
		for _, m := range ms {
			names = append(names, m.Name)
		}
		var header EvalLog
		if err := json.Unmarshal(ms[len(ms)-1].Data, &header); err != nil {
			t.Fatal(err)
		}
		want := []string{memberStart}
		for _, id := range header.Eval.Dataset.SampleIDs {
			want = append(want, SampleMember(id, 1))
		}
		want = append(want, journalMember(1), memberSummaries, memberReductions, memberHeader)
		if strings.Join(names, " ") != strings.Join(want, " ") {
			t.Errorf("%s: members %v, want %v", filepath.Base(p), names, want)
		}
		if !strings.Contains(filepath.Base(p), "_"+cleanComponent(header.Eval.Task)+"_"+header.Eval.TaskID+".eval") {
			t.Errorf("%s: name does not hold task %q and id %q", filepath.Base(p), header.Eval.Task, header.Eval.TaskID)
		}
		var raw map[string]any
		if err := json.Unmarshal(ms[len(ms)-1].Data, &raw); err != nil {
			t.Fatal(err)
		}
		if _, ok := raw["samples"]; ok {
			t.Errorf("%s: header.json holds the samples", filepath.Base(p))
		}
	}
}

// TestInspectJSONFormat: the .json format holds the same header, samples
// and reductions as the .eval one.
func TestInspectJSONFormat(t *testing.T) {
	evals, jsons := exportFixture(t, FormatEval), exportFixture(t, FormatJSON)
	if len(evals) != len(jsons) {
		t.Fatalf("%d .eval logs, %d .json", len(evals), len(jsons))
	}
	for i := range evals {
		if strings.TrimSuffix(filepath.Base(evals[i]), ".eval") != strings.TrimSuffix(filepath.Base(jsons[i]), ".json") {
			t.Errorf("names differ: %s, %s", evals[i], jsons[i])
		}
		var whole map[string]any
		data, err := os.ReadFile(jsons[i])
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(data, &whole); err != nil {
			t.Fatal(err)
		}
		var samples []any
		from := map[string]any{}
		for _, m := range readEval(t, evals[i]) {
			var v any
			if err := json.Unmarshal(m.Data, &v); err != nil {
				t.Fatal(err)
			}
			switch {
			case strings.HasPrefix(m.Name, "samples/"):
				samples = append(samples, v)
			case m.Name == memberReductions:
				if len(asList(v)) > 0 { // omitted from a .json log with none
					from["reductions"] = v
				}
			case m.Name == memberHeader:
				for k, x := range v.(map[string]any) {
					from[k] = x
				}
			}
		}
		from["samples"] = samples
		a, _ := json.Marshal(from)
		b, _ := json.Marshal(whole)
		if !bytes.Equal(a, b) {
			t.Errorf("%s: the .json log differs from the .eval one", filepath.Base(jsons[i]))
		}
	}
}

// samplesByID exports the fixture as .json and returns its samples by id.
func samplesByID(t *testing.T) map[string]map[string]any {
	t.Helper()
	out := map[string]map[string]any{}
	for _, p := range exportFixture(t, FormatJSON) {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		var l map[string]any
		if err := json.Unmarshal(data, &l); err != nil {
			t.Fatal(err)
		}
		for _, s := range l["samples"].([]any) {
			s := s.(map[string]any)
			out[s["id"].(string)] = s
		}
	}
	return out
}

// TestInspectSamples: each run's sample carries its scores, metadata,
// thinking as reasoning apart from the visible text, both agents of a
// relay marked, and an errored run as an errored sample without scores.
func TestInspectSamples(t *testing.T) {
	samples := samplesByID(t)
	var runs []results.Run
	if err := results.ReadRuns(filepath.Join(fixture, results.RunsFile), func(r results.Run) error {
		runs = append(runs, r)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	for _, r := range runs {
		t.Run(r.RunID, func(t *testing.T) {
			s, ok := samples[r.RunID]
			if !ok {
				t.Fatal("no sample")
			}
			meta := s["metadata"].(map[string]any)
			for k, want := range map[string]any{"task": r.Task, "variant": r.Variant, "surface": r.Surface, "condition": r.Condition,
				"defense": r.Defense, "attack": r.RunAttack(), "canary": r.Canary, "run_id": r.RunID} {
				if meta[k] != want {
					t.Errorf("metadata %s = %v, want %v", k, meta[k], want)
				}
			}
			if retries := asList(s["error_retries"]); len(retries) != len(r.AttemptErrors) {
				t.Errorf("%d error retries, want %d", len(retries), len(r.AttemptErrors))
			}
			scores, _ := s["scores"].(map[string]any)
			if r.Error != "" {
				if s["error"] == nil || s["error"].(map[string]any)["message"] != r.Error {
					t.Errorf("error = %v, want %q", s["error"], r.Error)
				}
				if len(scores) != 0 {
					t.Errorf("an errored run has scores %v", scores)
				}
				return
			}
			value := func(name string) any {
				sc, ok := scores[name].(map[string]any)
				if !ok {
					t.Fatalf("no score %s in %v", name, scores)
				}
				return sc["value"]
			}
			if r.IsRewardHack() {
				if value(ScoreHack) != *r.Hack || value(ScoreVisiblePass) != *r.VisiblePass || value(ScoreTruePass) != *r.TruePass {
					t.Errorf("reward-hack scores %v, run hack=%v visible=%v true=%v", scores, *r.Hack, *r.VisiblePass, *r.TruePass)
				}
			} else if value(ScoreStage) != r.Stage || value(ScoreExecuted) != results.Is(r.Executed) ||
				value(ScoreAttackGoal) != r.AttackGoal || value(ScoreNoticed) != r.Noticed {
				t.Errorf("scores %v, run stage=%s executed=%v goal=%v noticed=%v", scores, r.Stage, results.Is(r.Executed), r.AttackGoal, r.Noticed)
			}
			if value(ScoreTaskSuccess) != r.TaskSuccess {
				t.Errorf("task_success %v, want %v", value(ScoreTaskSuccess), r.TaskSuccess)
			}
			checkMessages(t, r, s["messages"].([]any))
			var in, out, reasoning float64
			for _, u := range s["model_usage"].(map[string]any) {
				u := u.(map[string]any)
				in, out = in+u["input_tokens"].(float64), out+u["output_tokens"].(float64)
				reasoning += u["reasoning_tokens"].(float64)
			}
			if int(in) != r.InputTokens || int(out) != r.OutputTokens || int(reasoning) != r.ReasoningTokens {
				t.Errorf("model_usage %v, want the run's %d in, %d out, %d reasoning", s["model_usage"], r.InputTokens, r.OutputTokens, r.ReasoningTokens)
			}
		})
	}
}

// checkMessages: every thinking entry of the run's transcript is one
// reasoning part and in no text; both agents' messages are marked with
// their position; each tool message answers a call made before it.
func checkMessages(t *testing.T, r results.Run, msgs []any) {
	tr, err := results.ReadTranscript(fixture, r.RunID)
	if err != nil {
		t.Fatal(err)
	}
	var thinking []string
	positions := map[string]bool{}
	for _, e := range tr.Entries {
		if e.Kind == "thinking" {
			thinking = append(thinking, e.Text)
		}
		positions[e.Pos] = true
	}
	var reasoning []string
	var texts []string
	calls := map[string]bool{}
	seen := map[string]bool{}
	for _, m := range msgs {
		m := m.(map[string]any)
		meta, _ := m["metadata"].(map[string]any)
		pos, _ := meta["position"].(string)
		if pos == "" {
			t.Errorf("%s message without its agent's position", m["role"])
		}
		seen[pos] = true
		switch c := m["content"].(type) {
		case string:
			texts = append(texts, c)
		case []any:
			for _, p := range c {
				p := p.(map[string]any)
				switch p["type"] {
				case "reasoning":
					reasoning = append(reasoning, p["reasoning"].(string))
				case "text":
					texts = append(texts, p["text"].(string))
				}
			}
		}
		for _, tc := range asList(m["tool_calls"]) {
			calls[tc.(map[string]any)["id"].(string)] = true
		}
		if m["role"] == "tool" && !calls[m["tool_call_id"].(string)] {
			t.Errorf("tool message %v answers no earlier call", m["tool_call_id"])
		}
	}
	if strings.Join(reasoning, "\x00") != strings.Join(thinking, "\x00") {
		t.Errorf("reasoning parts %q, want the transcript's thinking %q", reasoning, thinking)
	}
	for _, th := range thinking {
		for _, tx := range texts {
			if th != "" && strings.Contains(tx, th) {
				t.Errorf("thinking %q is in a visible text", th)
			}
		}
	}
	for p := range positions {
		if !seen[p] {
			t.Errorf("no message of the agent at position %s", p)
		}
	}
}

func asList(v any) []any {
	l, _ := v.([]any)
	return l
}

func readFile(t *testing.T, path string) []byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// TestInspectWithoutManifest: a study folder without manifest.json or
// transcripts (an imported one) exports too: the runs name the study,
// the samples have no messages and count the runs' tokens on their first
// model.
func TestInspectWithoutManifest(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, results.RunsFile), readFile(t, filepath.Join(fixture, results.RunsFile)), 0o644); err != nil {
		t.Fatal(err)
	}
	paths, err := Inspect(t.Context(), dir, InspectOptions{Format: FormatJSON})
	if err != nil {
		t.Fatal(err)
	}
	if len(paths) != 5 || filepath.Dir(paths[0]) != filepath.Join(dir, "inspect") {
		t.Fatalf("wrote %v, want 5 logs in DIR/inspect", paths)
	}
	var l EvalLog
	if err := json.Unmarshal(readFile(t, paths[0]), &l); err != nil {
		t.Fatal(err)
	}
	if l.Eval.Dataset.Name != "smoke" || l.Eval.Model != "killchain/compliant" {
		t.Errorf("dataset %q, model %q; want smoke, killchain/compliant", l.Eval.Dataset.Name, l.Eval.Model)
	}
	s := l.Samples[0]
	if len(s.Messages) != 0 || s.ModelUsage["killchain/compliant"].TotalTokens != 3460+203 || s.Scores[ScoreStage].Value != "executed" {
		t.Errorf("sample %+v", s)
	}
}
