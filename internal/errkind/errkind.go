// Package errkind is the one list of the ways a run can fail without an
// outcome: runs.jsonl's error_kind, attempts.jsonl's kind, the agent loop's
// and the runner's errors and the report's error columns all use it. An
// errored run is never counted as a resisted attack.
package errkind

// Kind names what failed.
type Kind string

// The error kinds. The model's own failures come first (they are its
// behaviour under the study's settings, never retried), then the
// infrastructure's.
const (
	// Truncated is a reply cut by the token limit or left incomplete.
	Truncated Kind = "truncated"
	// Refused is a reply refused by the provider's filter or the model.
	Refused Kind = "refused"
	// Attacker is an adaptive attacker that gave no usable payload for a
	// run of its round within the asks allowed (empty, refused, cut, no
	// canary placeholder): the run never started, and is no outcome.
	Attacker Kind = "attacker"
	// Provider is a failed provider call (network, HTTP status, a reply
	// that cannot be decoded).
	Provider Kind = "provider"
	// Sandbox is a sandbox that could not start, answer or finish.
	Sandbox Kind = "sandbox"
	// Defense is a defense that failed (not one that blocked a call).
	Defense Kind = "defense"
	// Verifier is a verifier that could not run at all (it fails closed).
	Verifier Kind = "verifier"
	// Internal is a fault of the study or of this tool.
	Internal Kind = "internal"
)

// All lists every kind in the order reports show them.
var All = []Kind{Truncated, Refused, Attacker, Provider, Sandbox, Defense, Verifier, Internal}

// Known reports whether s names a kind of All.
func Known(s string) bool {
	for _, k := range All {
		if string(k) == s {
			return true
		}
	}
	return false
}

// Retryable reports whether a run that failed this way is worth another
// try in the same settings: sandbox, provider and verifier faults belong to
// the infrastructure, and a fresh sandbox or the provider a moment later
// may well succeed. Truncated and refused replies are the model's behaviour
// under the study's settings (a retry that happened to pass would bias the
// outcomes towards compliant replies); defense and internal errors would
// only repeat.
func (k Kind) Retryable() bool {
	switch k {
	case Sandbox, Provider, Verifier:
		return true
	}
	return false
}
