// Package agentbench imports the per-run log of the original harness
// (agent_bench, released with the Kill-Chain Canaries paper as runs.csv)
// into the results.Run schema, so that the same report reads it. Every
// column of the log is kept verbatim in Run.Harness beside our fields.
//
// Mapping (columns as in testdata/paperlog/SOURCE.md):
//
//	run_id, batch, defense      → run_id, batch, defense
//	scenario                    → task; its mode is fixed by the task:
//	                              memory_poison, tool_poison, multi_surface,
//	                              audio_inject single; propagation and
//	                              cross_modal_relay memory_relay;
//	                              permission_esc delegation_relay
//	attack_variant              → variant ("none" for clean runs)
//	entry_surface + scenario    → surface, in our vocabulary (see surfaces)
//	model_a, model_b            → model_a, model_b ("" in single mode)
//	is_attacked                 → attacked; condition "hack" or "plain"
//	n_tool_calls_a > 0          → exposed, as the paper derives it: the
//	                              payload sits in the result of the tool
//	                              the agent must call first, so a run that
//	                              called it was exposed (Section 4.1, Table
//	                              2). The log's stage_propagated is false for
//	                              runs that called the tool twice; the audit
//	                              lists those disagreements.
//	stage_persisted             → persisted, memory relays only, else null
//	stage_relayed               → relayed, relays only, else null
//	attack_succeeded            → executed (Options.Executed chooses
//	                              stage_executed instead)
//	harmful_action              → attack_goal
//	utility_success             → task_success
//	n_tool_calls_a == 0         → no_tool_call
//	n_tool_calls_a/_b           → tool_calls_a/_b
//	stopped_by_a/_b "error:…"   → error, only with Options.ErrorsAsErrors
//
// The harness logged no canary, steps, tokens, lag or transcript: those
// fields stay empty.
package agentbench

import (
	"bufio"
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/killchain/killchain/internal/results"
	"github.com/killchain/killchain/internal/rooted"
	"github.com/killchain/killchain/internal/vocab"
)

// Harness is the name recorded in Run.Harness.Harness.
const Harness = "agentbench"

// Study is the study name given to imported runs.
const Study = "agentbench"

// Executed sources.
const (
	// FromSuccess takes executed from attack_succeeded, the label the
	// paper's Table 1 counts.
	FromSuccess = "attack_succeeded"
	// FromStage takes executed from stage_executed, the harness's own
	// canary-in-outbound-call stage.
	FromStage = "stage_executed"
)

// Options choose between the harness's reading of its log and ours.
type Options struct {
	// Executed names the column executed comes from: FromSuccess (the
	// default) or FromStage.
	Executed string
	// ErrorsAsErrors records runs the harness stopped with an error as
	// errored runs, as this tool does. By default they stay outcomes (unsuccessful
	// attacks without a tool call), as the paper counted them.
	ErrorsAsErrors bool
	// InPaperOnly keeps the rows whose in_paper column is True.
	InPaperOnly bool
}

// Columns the importer needs; a log without one of them is rejected.
var required = []string{
	"run_id", "batch", "in_paper", "scenario", "attack_variant", "entry_surface", "defense",
	"model_a", "model_b", "is_attacked", "stage_propagated", "stage_persisted", "stage_relayed",
	"stage_executed", "harmful_action", "utility_success", "attack_succeeded",
	"n_tool_calls_a", "n_tool_calls_b", "stopped_by_a", "stopped_by_b",
}

// modes maps the harness's scenarios to our modes.
var modes = map[string]vocab.Mode{
	"memory_poison": vocab.Single, "tool_poison": vocab.Single, "multi_surface": vocab.Single,
	"audio_inject": vocab.Single, "audio": vocab.Single,
	"propagation": vocab.MemoryRelay, "cross_modal_relay": vocab.MemoryRelay,
	"permission_esc": vocab.DelegationRelay,
}

// surfaces maps a scenario to the surface name our tasks use; a scenario
// not listed keeps the log's entry_surface.
var surfaces = map[string]string{
	"memory_poison": "memory", "tool_poison": "tool_result", "propagation": "web_page",
	"permission_esc": "web_page", "multi_surface": "web_page+memory", "audio_inject": "audio", "audio": "audio",
}

// Import reads the log at path.
func Import(path string, opts Options) ([]results.Run, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("import agentbench: %w", err)
	}
	defer f.Close()
	var runs []results.Run
	err = Read(f, opts, func(r results.Run) error {
		runs = append(runs, r)
		return nil
	})
	return runs, err
}

// Read streams the log from r, calling fn once per kept row in file order.
func Read(r io.Reader, opts Options, fn func(results.Run) error) error {
	switch opts.Executed {
	case "":
		opts.Executed = FromSuccess
	case FromSuccess, FromStage:
	default:
		return fmt.Errorf("import agentbench: executed from %q: want %s or %s", opts.Executed, FromSuccess, FromStage)
	}
	cr := csv.NewReader(r)
	cr.ReuseRecord = true
	header, err := cr.Read()
	if err != nil {
		return fmt.Errorf("import agentbench: read header: %w", err)
	}
	header = append([]string(nil), header...)
	col := make(map[string]int, len(header))
	for i, h := range header {
		col[strings.TrimSpace(h)] = i
	}
	var missing []string
	for _, c := range required {
		if _, ok := col[c]; !ok {
			missing = append(missing, c)
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("import agentbench: missing columns %s", strings.Join(missing, ", "))
	}
	for line := 2; ; line++ {
		rec, err := cr.Read()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("import agentbench: %w", err)
		}
		labels := make(map[string]string, len(header))
		for i, h := range header {
			if i < len(rec) {
				labels[h] = rec[i]
			}
		}
		if opts.InPaperOnly && !truth(labels["in_paper"]) {
			continue
		}
		run, err := convert(labels, opts)
		if err != nil {
			return fmt.Errorf("import agentbench: line %d: %w", line, err)
		}
		if err := fn(run); err != nil {
			return err
		}
	}
}

// convert maps one row.
func convert(l map[string]string, opts Options) (results.Run, error) {
	if l["run_id"] == "" {
		return results.Run{}, errors.New("empty run_id")
	}
	mode, ok := modes[l["scenario"]]
	if !ok {
		return results.Run{}, fmt.Errorf("run %s: unknown scenario %q", l["run_id"], l["scenario"])
	}
	attacked := truth(l["is_attacked"])
	r := results.Run{
		Study: Study, Batch: l["batch"], RunID: l["run_id"],
		Task: l["scenario"], Variant: l["attack_variant"], Mode: string(mode),
		Defense: l["defense"], ModelA: l["model_a"], ModelB: l["model_b"], Attacked: attacked,
		AttackGoal: truth(l["harmful_action"]), TaskSuccess: truth(l["utility_success"]),
		Harness: &results.HarnessLabels{Harness: Harness, Labels: l},
	}
	if r.Variant == "" {
		r.Variant = "none"
	}
	r.Surface = surfaces[r.Task]
	if r.Surface == "" {
		r.Surface = l["entry_surface"]
	}
	r.Condition = "plain"
	if attacked {
		r.Condition = "hack"
	}
	if mode == vocab.Single {
		r.ModelB = ""
	}
	var err error
	if r.ToolCallsA, err = count(l, "n_tool_calls_a"); err != nil {
		return r, err
	}
	if r.ToolCallsB, err = count(l, "n_tool_calls_b"); err != nil {
		return r, err
	}
	r.NoToolCall = r.ToolCallsA == 0
	r.Cell = strings.Join([]string{r.Task, r.Variant, r.ModelA + ">" + r.ModelB, r.Condition, r.Defense}, "/")

	flag := func(s vocab.Stage, v bool) *bool {
		if !mode.Applies(s) {
			return nil
		}
		return &v
	}
	executed := truth(l[opts.Executed])
	r.Exposed = flag(vocab.Exposed, attacked && r.ToolCallsA > 0)
	r.Persisted = flag(vocab.Persisted, truth(l["stage_persisted"]))
	r.Relayed = flag(vocab.Relayed, truth(l["stage_relayed"]))
	r.Executed = flag(vocab.Executed, executed)
	r.Stage = vocab.None.String()
	for _, s := range []struct {
		st vocab.Stage
		b  *bool
	}{{vocab.Exposed, r.Exposed}, {vocab.Persisted, r.Persisted}, {vocab.Relayed, r.Relayed}, {vocab.Executed, r.Executed}} {
		if results.Is(s.b) {
			r.Stage = s.st.String()
		}
	}
	if opts.ErrorsAsErrors {
		for _, c := range []string{"stopped_by_a", "stopped_by_b"} {
			if strings.HasPrefix(l[c], "error") {
				r.Error, r.ErrorKind = l[c], "internal"
				break
			}
		}
	}
	return r, nil
}

// truth reads the harness's Python booleans.
func truth(s string) bool {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "true", "1", "yes":
		return true
	}
	return false
}

func count(l map[string]string, c string) (int, error) {
	s := strings.TrimSpace(l[c])
	if s == "" {
		return 0, nil
	}
	n, err := strconv.Atoi(s)
	if err != nil {
		return 0, fmt.Errorf("run %s: %s: %w", l["run_id"], c, err)
	}
	return n, nil
}

// Convert reads the harness's runs.csv at file and writes it as a study
// folder dir: dir/runs.jsonl in our run schema, each run keeping the
// harness's own labels. The report reads the folder like any other.
func Convert(ctx context.Context, file, dir string, opts Options) error {
	in, err := os.Open(file)
	if err != nil {
		return fmt.Errorf("import: %w", err)
	}
	defer in.Close()
	// The study folder is written like every other (package rooted).
	folder, err := rooted.Open(dir)
	if err != nil {
		return fmt.Errorf("import: %w", err)
	}
	defer folder.Close()
	out, err := folder.Create(results.RunsFile)
	if err != nil {
		return fmt.Errorf("import: %w", err)
	}
	defer out.Close()
	w := bufio.NewWriter(out)
	enc := json.NewEncoder(w)
	n := 0
	err = Read(bufio.NewReader(in), opts, func(r results.Run) error {
		if n++; n%1024 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		return enc.Encode(r)
	})
	if err == nil {
		err = w.Flush()
	}
	if err == nil {
		err = out.Commit()
	}
	if err != nil {
		return fmt.Errorf("import: %w", err)
	}
	return nil
}
