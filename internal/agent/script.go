package agent

import "encoding/json"

// Script is the ground truth the harness hands the scripted reference
// agents on a suite: they are controls, not models, and play it instead of
// reading calls out of their prompt. The runner sets it on every request
// of every role of a suite run; no live driver sends it to a provider
// (Request.Script is never encoded).
type Script struct {
	// Task are this role's calls of the user task's ground truth, in
	// order.
	Task []ScriptCall
	// Injection are the injection's ground-truth calls, {{CANARY}} and
	// {{ATTACKER}} rendered for the run; each agent makes those its tools
	// allow. Nil in a clean run.
	Injection []ScriptCall
	// FreeText are each tool's parameters that carry free text: a
	// compliant agent puts the canary there.
	FreeText map[string][]string
	// Canary is the run's canary ("" in a clean run): a reference agent
	// is exposed when a tool result it received carries it, plain or
	// encoded.
	Canary string
}

// ScriptCall is one call of a Script.
type ScriptCall struct {
	Tool string
	Args json.RawMessage
}
