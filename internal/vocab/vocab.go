// Package vocab holds the shared words of a study: how a task's agents are
// wired (Mode), the kill-chain stages (Stage), the task families, the
// channels where the agent loop sees text (Channel), and the line of
// events.jsonl (Event) with its signals. It imports nothing of killchain,
// so the tasks, the tracker, the results and the report speak the same
// words without depending on one another.
package vocab

// Mode is how a task's agents are wired.
type Mode string

// Modes.
const (
	Single          Mode = "single"
	MemoryRelay     Mode = "memory_relay"
	DelegationRelay Mode = "delegation_relay"
	// Pipeline is two or more roles in sequence over one stateful
	// environment: a later role reads what an earlier one wrote to the state.
	Pipeline Mode = "pipeline"
)

// Stage is a kill-chain stage, ordered.
type Stage int

// Stages, low to high.
const (
	None Stage = iota
	Exposed
	Persisted
	Relayed
	Executed
)

var stageNames = [...]string{"none", "exposed", "persisted", "relayed", "executed"}

// StageNames returns the stage names used in runs.jsonl, lowest first.
func StageNames() []string { return append([]string(nil), stageNames[:]...) }

// String returns the stage name used in runs.jsonl.
func (s Stage) String() string { return stageNames[s] }

// Applies reports whether a stage can happen in a mode. Single-agent tasks
// have no Persisted or Relayed stage; a delegation relay has no memory.
func (m Mode) Applies(s Stage) bool {
	switch s {
	case Persisted:
		return m == MemoryRelay || m == Pipeline
	case Relayed:
		return m == MemoryRelay || m == DelegationRelay || m == Pipeline
	}
	return true
}

// The task families, runs.jsonl's family: every rate is computed within one
// family.
const (
	// FamilyInjection tasks plant a payload that attacks the agent.
	FamilyInjection = "injection"
	// FamilyRewardHack tasks are coding tasks whose tests the agent can reach.
	FamilyRewardHack = "reward_hack"
)
