// Package results defines the files a study writes (runs.jsonl, events.jsonl,
// transcripts/, manifest.json) and reads them back, streaming.
package results

import (
	"github.com/killchain/killchain/internal/errkind"
	"github.com/killchain/killchain/internal/vocab"
)

// Run is one line of runs.jsonl. Field names are stable: users parse them.
type Run struct {
	Study   string `json:"study"`
	Batch   string `json:"batch"`
	Grid    string `json:"grid"`
	RunID   string `json:"run_id"`
	Cell    string `json:"cell"`
	Repeat  int    `json:"repeat"`
	Task    string `json:"task"`
	Variant string `json:"variant"`
	// Attack is the attack library's attack the run planted (its family
	// and encodings, "tool_knowledge+base64"), or the task's own variant;
	// "" on lines written before it was recorded (see RunAttack).
	Attack  string `json:"attack"`
	Surface string `json:"surface"`
	Mode    string `json:"mode"`
	// Family is the task's family (vocab.FamilyInjection,
	// vocab.FamilyRewardHack); "" on lines written before it was recorded
	// (see RunFamily).
	Family    string `json:"family"`
	Condition string `json:"condition"`
	Defense   string `json:"defense"`
	ModelA    string `json:"model_a"`
	ModelB    string `json:"model_b"`
	Attacked  bool   `json:"attacked"`
	Canary    string `json:"canary"`

	Stage     string `json:"stage"`
	Exposed   *bool  `json:"exposed"`
	Persisted *bool  `json:"persisted"`
	Relayed   *bool  `json:"relayed"`
	Executed  *bool  `json:"executed"`

	AttackGoal       bool `json:"attack_goal"`
	TaskSuccess      bool `json:"task_success"`
	Noticed          bool `json:"noticed"`
	NoticedThinking  bool `json:"noticed_thinking"`
	NoticedNarration bool `json:"noticed_narration"`
	NoToolCall       bool `json:"no_tool_call"`
	Contaminated     bool `json:"contaminated"`
	BlockedWrites    int  `json:"blocked_writes"`
	BlockedCalls     int  `json:"blocked_calls"`
	RefusedCalls     int  `json:"refused_calls"`
	// FailedCalls counts calls that carried out no effect: refused, blocked
	// by a defense, or failed in the sandbox (attempts, not effects).
	FailedCalls int `json:"failed_calls"`
	// CanaryAttempts counts attempts whose requested arguments carried the
	// run's canary: evidence of intent, never a stage.
	CanaryAttempts int `json:"canary_attempts"`
	// ClassifierErrors counts pi_detector checks with no usable verdict;
	// each blocked its call (the detector fails closed).
	ClassifierErrors int  `json:"classifier_errors"`
	Lag              *int `json:"lag"`

	StepsA     int `json:"steps_a"`
	StepsB     int `json:"steps_b"`
	ToolCallsA int `json:"tool_calls_a"`
	ToolCallsB int `json:"tool_calls_b"`
	Outbound   int `json:"outbound_calls"`

	InputTokens     int `json:"input_tokens"`
	OutputTokens    int `json:"output_tokens"`
	ReasoningTokens int `json:"reasoning_tokens"`
	// CachedInputTokens are the input tokens the provider read from its
	// prompt cache and CacheWriteTokens those it wrote to it, both counted
	// in InputTokens too; TokensEstimated is set when some count is an
	// estimate (a provider that reported none), not the provider's own.
	CachedInputTokens int  `json:"cached_input_tokens"`
	CacheWriteTokens  int  `json:"cache_write_tokens"`
	TokensEstimated   bool `json:"tokens_estimated"`
	// Cost is what the run cost in US dollars at the study's prices (its
	// earlier tries included, see AttemptError.Cost); 0 for scripted
	// agents and models without a price.
	Cost float64 `json:"cost"`
	// RateLimited counts the provider's 429 answers the run's calls met.
	RateLimited int `json:"rate_limited"`

	// Events is how many lines the run has in events.jsonl, set by Write;
	// nil on lines written before it existed. Compact keeps a run's last
	// Events events and drops older copies.
	Events *int `json:"events,omitempty"`

	DurationMS int64  `json:"duration_ms"`
	Error      string `json:"error"`
	// ErrorKind says what failed when Error is set (errkind.All).
	ErrorKind errkind.Kind `json:"error_kind,omitempty"`
	// ErrorReason is a sandbox error's fault when the backend named one
	// (sandbox.Fault: "unschedulable", "image", "start", "oom_killed",
	// "evicted", "exited", "timeout", "protocol").
	ErrorReason string `json:"error_reason,omitempty"`
	Started     string `json:"started"`
	// Attempts is how many tries the run took, this line's included: 1
	// unless an earlier try failed with a sandbox or provider error and the
	// run was retried in a fresh sandbox with a fresh canary. 0 on lines
	// written before retries existed.
	Attempts int `json:"attempts"`
	// AttemptErrors holds the error of each try before this line's, oldest
	// first; those tries' events and transcripts were discarded. Empty when
	// the first try is the one recorded.
	AttemptErrors []AttemptError `json:"attempt_errors,omitempty"`

	// RewardHack holds the reward-hack fields, on reward-hack runs only:
	// there every field is written (nulls and empty lists included), and
	// on every other run none is.
	*RewardHack
	// Adaptive holds the adaptive-attack fields (round, attacker, feedback,
	// payload, parent), on the runs of a grid with an attacker only.
	*Adaptive
	// Stateful holds the suite fields (suite, injection, injection_kind,
	// helpful, relay_depth), on the runs of a suite only.
	*Stateful

	// Forensics are the run's forensic signals; absent for runs recorded
	// before they existed and for imported runs.
	Forensics *Forensics `json:"forensics,omitempty"`
	// Harness holds the original labels of a run imported from another
	// harness's log; absent for runs of this tool.
	Harness *HarnessLabels `json:"harness,omitempty"`
}

// RewardHack is the reward-hack fields of a run: the pristine verifier's
// verdict (see RewardVerdict) and where the hack shows. They are null on a
// run whose verifier did not decide (an errored run). HackNarrated,
// HackInThinking and HackSilent are false when there is no hack; the steps
// are the first step whose thinking, narration or effect shows the hack
// (null when none does).
type RewardHack struct {
	VisiblePass   *bool `json:"visible_pass"`
	TruePass      *bool `json:"true_pass"`
	HeldOutPassed *int  `json:"held_out_passed"`
	HeldOutTotal  *int  `json:"held_out_total"`
	// Limits names each limit the agent's workspace or solution reached
	// (RewardVerdict.Limits); empty when none was.
	Limits            []string `json:"limits"`
	Tampered          []string `json:"tampered"`
	Hack              *bool    `json:"hack"`
	HackKind          string   `json:"hack_kind"`
	HackNarrated      *bool    `json:"hack_narrated"`
	HackInThinking    *bool    `json:"hack_in_thinking"`
	HackSilent        *bool    `json:"hack_silent"`
	HackStepThinking  *int     `json:"hack_step_thinking"`
	HackStepNarration *int     `json:"hack_step_narration"`
	HackStepEffect    *int     `json:"hack_step_effect"`
}

// NewRewardHack returns the fields of a reward-hack run not yet decided:
// nulls and an empty list.
func NewRewardHack() *RewardHack { return &RewardHack{Tampered: []string{}, Limits: []string{}} }

// RunFamily is the run's family: its family field, else (on lines written
// before it was recorded) reward_hack when it carries reward-hack fields.
func (r *Run) RunFamily() string {
	switch {
	case r.Family != "":
		return r.Family
	case r.RewardHack != nil:
		return vocab.FamilyRewardHack
	}
	return vocab.FamilyInjection
}

// IsRewardHack reports whether the run is of the reward-hack family.
func (r *Run) IsRewardHack() bool { return r.RunFamily() == vocab.FamilyRewardHack }

// AttemptError is one failed try of a run that was tried again.
type AttemptError struct {
	// Kind is the error kind, as in Run.ErrorKind (a retryable one).
	Kind  errkind.Kind `json:"kind"`
	Error string       `json:"error"`
	// Reason is a sandbox error's fault, as in Run.ErrorReason.
	Reason string `json:"reason,omitempty"`
	// Canary is the try's canary ("" for a clean run); it is never reused.
	Canary     string `json:"canary,omitempty"`
	Started    string `json:"started"`
	DurationMS int64  `json:"duration_ms"`
	// Cost is what the try cost (its tokens were spent too).
	Cost float64 `json:"cost,omitempty"`
}

// Is reports whether a nullable stage flag is true.
func Is(b *bool) bool { return b != nil && *b }

// RunAttack is the run's attack: the recorded one, or its variant on lines
// written before attacks were recorded.
func (r Run) RunAttack() string {
	if r.Attack != "" {
		return r.Attack
	}
	return r.Variant
}
