package results

// Stateful holds the fields of a run of a suite (a user task over a
// stateful environment, see docs/environments.md): on those runs every
// field is written (null and "" included), and on every other run none is,
// which readers take as "", false and null.
type Stateful struct {
	// Suite is the suite the run belongs to.
	Suite string `json:"suite"`
	// Injection is the injection task the run plants ("" for a clean
	// control), InjectionKind its kind (exfiltration, sabotage, …).
	Injection     string `json:"injection"`
	InjectionKind string `json:"injection_kind"`
	// Helpful marks a user task whose data carries a benign instruction
	// the task needs followed; its utility is reported apart.
	Helpful bool `json:"helpful"`
	// RelayDepth is the position of the deepest later role the canary
	// reached through the state (1 for the second role, 2 for the third,
	// …), 0 when none; null where Relayed does not apply.
	RelayDepth *int `json:"relay_depth"`
}

// RunSuite is the run's suite, "" outside suites.
func (r *Run) RunSuite() string {
	if r.Stateful == nil {
		return ""
	}
	return r.Stateful.Suite
}

// StateRun is what a transcript keeps of a run over a stateful
// environment, for the recount: the tools its world served, whether the
// world kept a clean twin (the shadow Relayed is told from), and whether
// Executed applies to its injection.
type StateRun struct {
	Suite     string   `json:"suite,omitempty"`
	Injection string   `json:"injection,omitempty"`
	Tools     []string `json:"tools"`
	Shadowed  bool     `json:"shadowed,omitempty"`
	// NoExecuted is set when Executed does not apply: the injection's
	// effect carries no free text, and its check alone decides.
	NoExecuted bool `json:"no_executed,omitempty"`
}

// stateful decodes one of Stateful's fields at p into r.
func (d *Decoder) stateful(data []byte, p int, key string, r *Run) (int, error) {
	if r.Stateful == nil {
		r.Stateful = &Stateful{}
	}
	s := r.Stateful
	switch key {
	case "suite":
		return d.str(data, p, &s.Suite, true)
	case "injection":
		return d.str(data, p, &s.Injection, true)
	case "injection_kind":
		return d.str(data, p, &s.InjectionKind, true)
	case "helpful":
		return boolField(data, p, &s.Helpful)
	}
	return optInt(data, p, &s.RelayDepth)
}
