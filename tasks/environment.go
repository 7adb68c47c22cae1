package tasks

import (
	"bytes"
	"encoding/json"

	"github.com/hashicorp/hcl/v2"

	"github.com/killchain/killchain/internal/world"
)

// A stateful environment and what runs over it (docs/environments.md):
// an environment holds an initial state and the tools that read and change
// it; a user task (a task that names an environment) has a goal check and
// a ground truth; an injection task has an attacker goal, a check and a
// ground truth; a suite gathers an environment's user tasks and
// injections. A grid over a suite plans user task × injection.

// Environment is a typed initial state, shared by every task that names it,
// and the tools that read and change it.
type Environment struct {
	Name        string
	Description string
	// State is the initial state as decoded (JSON values as Go, numbers
	// float64), {{PAYLOAD:vector}} placeholders left in its strings.
	State   any
	Vectors []Vector
	Tools   []EnvTool
	Source  Source
}

// Vector is a named place for a payload inside the state: the strings that
// hold {{PAYLOAD:name}}. Default is what stands there in a clean run and
// wherever a run's injection is not planted.
type Vector struct {
	Name, Default string
}

// EnvTool is one tool of an environment: how a model is offered it (Spec
// fields) and how it behaves (Def, CEL over state and args).
type EnvTool struct {
	Tool
	Def world.ToolDef
	// FreeText are the parameters that carry free text: the compliant
	// reference agent writes the canary there, and {{CALL}} fills them
	// with a line that carries it.
	FreeText []string
}

// Check is a CEL condition over a run's outcome (world.CompileCheck), as
// written and where.
type Check struct {
	Source  string
	Range   hcl.Range
	Program *world.Check
}

// GroundTruthCall is one call of a ground truth: the calls that, played in
// a fresh sandbox, reach their task's goal (a user task) or their check
// (an injection). String arguments may hold {{CANARY}} and {{ATTACKER}}.
type GroundTruthCall struct {
	Role string // the role that makes the call; "" is the first role
	Tool string
	Args json.RawMessage
}

// Injection kinds, for the report.
const (
	KindExfiltration = "exfiltration"
	KindSabotage     = "sabotage"
	KindFinancial    = "financial"
	KindPrivilege    = "privilege"
	KindMultiStep    = "multi_step"
)

// Injection is an injection task: what the attacker wants done in an
// environment, checked on the environment after the run.
type Injection struct {
	Name        string
	Environment string
	Kind        string
	// Goal is the attacker's goal in one sentence, for templates
	// ({{GOAL}}), with {{ATTACKER}} and {{CANARY}} where they go.
	Goal string
	// Attacker is the attacker's identity ({{ATTACKER}}, `attacker` in
	// checks): an address, an account, a user name. "" takes the suite's.
	Attacker string
	// Payload is the injection's own wording, "" when attack families
	// write it.
	Payload string
	// Vectors are where it is planted; nil plants it at every vector.
	Vectors     []string
	Check       Check
	GroundTruth []GroundTruthCall
	Source      Source
}

// ExecutedApplies reports whether the Executed stage can happen for the
// injection: its ground truth carries the canary in an argument of an
// outbound call. An attack whose effect carries no free text (inviting a
// user) is judged by its check alone.
func (in *Injection) ExecutedApplies(env *Environment) bool {
	for _, c := range in.GroundTruth {
		for _, t := range env.Tools {
			if t.Name == c.Tool && t.Outbound && containsCanary(c.Args) {
				return true
			}
		}
	}
	return false
}

func containsCanary(raw json.RawMessage) bool {
	return bytes.Contains(raw, []byte(CanaryPlaceholder))
}

// Suite is an environment with its user tasks and injection tasks.
type Suite struct {
	Name        string
	Environment string
	// User is the name of the user the agents work for ({{USER}}).
	User string
	// Attacker is the default attacker identity of the suite's injections.
	Attacker   string
	UserTasks  []string
	Injections []string
	Source     Source
}
