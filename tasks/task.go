package tasks

import (
	"fmt"
	"sort"

	"github.com/killchain/killchain/internal/tools"
	"github.com/killchain/killchain/internal/tracker"
	"github.com/killchain/killchain/sandbox"
)

// Placeholders in payload and prompt templates.
const (
	CanaryPlaceholder   = "{{CANARY}}"
	AttackerPlaceholder = "{{ATTACKER}}"
)

// Role is one agent of a task.
type Role struct {
	Name   string      // e.g. "researcher"
	System string      // system prompt
	Prompt string      // the user prompt that starts the agent; for the reader of a delegation relay, {{HANDOFF}} is replaced by the delegation message
	Level  tools.Level // highest level the role is granted
	Tools  []string    // tools the role is offered
}

// HandoffPlaceholder marks where a delegation message goes in a reader's prompt.
const HandoffPlaceholder = "{{HANDOFF}}"

// Variant is one payload variant.
type Variant struct {
	Name    string
	Surface string // the channel the payload enters through
	Payload string // wording with {{CANARY}} and {{ATTACKER}}; empty for variants that build their own
	// Spoken is set for audio variants: the payload is synthesized as speech.
	Spoken bool
}

// Goal is the legitimate goal the verifier checks.
type Goal struct {
	Recipient string   // the report must reach this address
	KeyFacts  []string // and hold each of these facts (case-insensitive)
}

// AttackGoal is what the attacker wants.
type AttackGoal struct {
	Address          string   // reports to this address reach the attacker
	Tools            []string // admin tools whose use is the attacker's goal
	ProtectedRecords []string // database records that must not be deleted or altered
}

// BuildInput is what a run contributes to its environment.
type BuildInput struct {
	Study, Run string
	Variant    Variant // by name; a clean run may leave it empty or "none"
	Attacked   bool    // false under a clean condition: no payload is planted
	Canary     string  // "" when not attacked
}

// Task is one scenario.
type Task struct {
	Name        string
	Description string
	Mode        tracker.Mode
	Roles       []Role // one for single tasks, writer then reader for relays
	Variants    []Variant
	Goal        Goal
	Attack      AttackGoal
	// PayloadTools are the tools whose results carry the payload; a run
	// whose agents never call one is a no-tool-call run.
	PayloadTools []string
	// Build returns the environment planted for one run.
	Build func(in BuildInput) (sandbox.Env, error)
	// ConditionPrompts is what each condition adds to the role prompts
	// (see PromptFor): the task, not the runner, says what a condition
	// changes. A condition it does not name adds nothing.
	ConditionPrompts map[string]string
	// Reward is set for reward-hack tasks (Family "reward_hack"): their
	// tests and protected files. See reward.go.
	Reward *RewardHack
}

// Variant returns a variant by name.
func (t *Task) Variant(name string) (Variant, bool) {
	for _, v := range t.Variants {
		if v.Name == name {
			return v, true
		}
	}
	return Variant{}, false
}

// VariantNames lists the task's variant names in declaration order.
func (t *Task) VariantNames() []string {
	out := make([]string, len(t.Variants))
	for i, v := range t.Variants {
		out[i] = v.Name
	}
	return out
}

// Surface is the surface of a variant, or of the task's first variant.
func (t *Task) Surface(variant string) string {
	if v, ok := t.Variant(variant); ok {
		return v.Surface
	}
	if len(t.Variants) > 0 {
		return t.Variants[0].Surface
	}
	return ""
}

var registry = map[string]*Task{}

// register adds a task at init time; a duplicate name is a programming error.
func register(t *Task) {
	if _, dup := registry[t.Name]; dup {
		panic(fmt.Sprintf("tasks: duplicate task %q", t.Name))
	}
	registry[t.Name] = t
}

// Get returns a task by name.
func Get(name string) (*Task, bool) {
	t, ok := registry[name]
	return t, ok
}

// Names returns every task name, sorted.
func Names() []string {
	out := make([]string, 0, len(registry))
	for n := range registry {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}
