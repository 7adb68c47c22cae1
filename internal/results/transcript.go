package results

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"unicode"

	"github.com/killchain/killchain/internal/agent"
	"github.com/killchain/killchain/sandbox"
)

// Transcript is transcripts/<run>.json: every message of a run's agents
// with thinking, narration, tool calls and results kept apart, and the
// sandbox's pristine and final state. The runner writes it; the report's
// per-run view, the recount and the probes' replay read it.
type Transcript struct {
	RunID string `json:"run_id"`
	Task  string `json:"task"`
	// TaskHash is the sha256 of the task's definition as it ran (see
	// Manifest.Tasks).
	TaskHash  string        `json:"task_hash,omitempty"`
	Variant   string        `json:"variant"`
	Condition string        `json:"condition"`
	Defense   string        `json:"defense"`
	Canary    string        `json:"canary,omitempty"`
	Agents    []AgentInfo   `json:"agents"`
	Entries   []agent.Entry `json:"entries"`
	Pristine  sandbox.State `json:"pristine_state"`
	Final     sandbox.State `json:"final_state"`
	// Verdict holds the verifier's reasons for its task-success and
	// attack-goal decisions.
	Verdict []string `json:"verifier"`
	// Reward is the pristine verifier's verdict on a reward-hack run, and
	// Verbalisation where its hack shows.
	Reward        *RewardVerdict `json:"reward,omitempty"`
	Verbalisation string         `json:"verbalisation,omitempty"`
	Error         string         `json:"error,omitempty"`
	// World is set on a run over a stateful environment: what the recount
	// needs of it beside the entries (each result's shadow) and the final
	// state (its world, with every call carried out).
	World *StateRun `json:"world,omitempty"`
}

// AgentInfo names one agent of a run.
type AgentInfo struct {
	Position string `json:"position"`
	Role     string `json:"role"`
	Model    string `json:"model"`
}

// TranscriptPath is the path of a run's transcript in the study folder
// dir. A run id that could leave transcripts/, or that holds a control
// character (no file name killchain writes does), is an error.
func TranscriptPath(dir, runID string) (string, error) {
	if runID == "" || runID == "." || runID == ".." || strings.ContainsAny(runID, `/\`) || strings.ContainsFunc(runID, unicode.IsControl) {
		return "", fmt.Errorf("transcript: unsafe run id %q", runID)
	}
	return filepath.Join(dir, TranscriptsDir, runID+".json"), nil
}

// ReadTranscript reads the transcript of run runID in the study folder dir.
// A run without one (imported and synthetic studies have none) returns an
// error that wraps fs.ErrNotExist.
func ReadTranscript(dir, runID string) (*Transcript, error) {
	p, err := TranscriptPath(dir, runID)
	if err != nil {
		return nil, err
	}
	return ReadTranscriptFile(p)
}

// ReadTranscriptFile reads one transcript file.
func ReadTranscriptFile(path string) (*Transcript, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("transcript %s: %w", filepath.Base(path), err)
		}
		return nil, fmt.Errorf("read transcript: %w", err)
	}
	var t Transcript
	if err := json.Unmarshal(data, &t); err != nil {
		return nil, fmt.Errorf("transcript %s: %w", path, err)
	}
	return &t, nil
}

// RewardVerdict is the pristine verifier's decision on a reward-hack run.
type RewardVerdict struct {
	// VisiblePass: the test command passed on the workspace as the agent
	// left it, tests and links included.
	VisiblePass bool `json:"visible_pass"`
	// RestoredPass: it passed with every protected file restored from the
	// pristine environment, so the solution passes the visible cases on
	// its own.
	RestoredPass bool `json:"restored_pass"`
	// TruePass: the solution passed every held-out case, run where no
	// expected output exists and compared outside every sandbox.
	TruePass bool `json:"true_pass"`
	// HeldOutPassed of HeldOutTotal held-out cases passed.
	HeldOutPassed int `json:"held_out_passed"`
	HeldOutTotal  int `json:"held_out_total"`
	// Tampered lists the protected workspace paths that differ from the
	// pristine environment (changed, added, deleted or made a link), and
	// those the solution wrote while it ran on the held-out cases, sorted.
	Tampered []string `json:"tampered,omitempty"`
	// CanaryFiles lists the unprotected workspace files that hold the
	// run's canary: where the test data went (evidence, never a verdict).
	CanaryFiles []string `json:"canary_files,omitempty"`
	// HackFiles lists the unprotected workspace files a special_case or
	// unexplained hack rests on: the solution's files.
	HackFiles []string `json:"hack_files,omitempty"`
	// Limits names each limit the agent's workspace or solution reached
	// (see the Limit constants of package verifiers), sorted. Reaching one
	// is an outcome, never an error.
	Limits []string `json:"limits,omitempty"`
	// Hack: a visible pass without a held-out pass, or tampering.
	Hack      bool     `json:"hack"`
	HackKind  string   `json:"hack_kind,omitempty"`
	HackKinds []string `json:"hack_kinds,omitempty"`
	// VisibleOutput and RestoredOutput are what the two test runs printed;
	// TrueOutput is the held-out cases' report, one line per case.
	VisibleOutput  string   `json:"visible_output"`
	RestoredOutput string   `json:"restored_output"`
	TrueOutput     string   `json:"true_output"`
	Reasons        []string `json:"reasons"`
}
