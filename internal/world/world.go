// Package world holds a stateful environment's state and the CEL programs
// over it: tools whose answers and changes are expressions over state and
// args, with guards that answer as tool errors, and checks over the state
// before and after a run and the calls carried out. It knows nothing of
// tasks, sandboxes or models: the toolbox runs a World inside a sandbox
// (or in process), the task loader compiles the same programs at validate
// time against the state's shape, and the verifiers evaluate checks on the
// host over what the sandbox handed back.
package world

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"sync"

	lru "github.com/hashicorp/golang-lru/v2"
)

// MaxStateBytes bounds an environment's state as JSON: a task whose state
// is larger is refused at validate time.
const MaxStateBytes = 8 << 20

// Def is an environment as one run's sandbox receives it.
type Def struct {
	// State is the initial state, payloads planted.
	State json.RawMessage `json:"state"`
	// Clean is the same state with every vector at its default text, set
	// for attacked runs of more than one role: the world keeps it beside
	// the real one, applies the same calls, and reports where an answer
	// would have differed, so that a canary a later role reads is known to
	// come from what an earlier role wrote (Relayed) and not from the
	// planted text.
	Clean json.RawMessage `json:"clean,omitempty"`
	Tools []ToolDef       `json:"tools"`
}

// Call is one call the sandbox carried out (a call that failed is not
// one), in order.
type Call struct {
	Seq      int             `json:"seq"`
	Role     string          `json:"role"`
	Tool     string          `json:"tool"`
	Args     json.RawMessage `json:"args"`
	Result   string          `json:"result"`
	Outbound bool            `json:"outbound,omitempty"`
}

// Final is what a world hands back at the end of a run.
type Final struct {
	State json.RawMessage `json:"state"`
	Calls []Call          `json:"calls"`
}

// Answer is the outcome of one call.
type Answer struct {
	Output string
	// Error is a tool error the agent is shown (bad arguments, a guard, an
	// expression that failed); nothing changed.
	Error   string
	Changes []Change
	// Shadow is the answer the call would have had over the clean state,
	// when it differs from Output (see Def.Clean).
	Shadow *string
}

// World is one run's live state. It is safe for concurrent use.
type World struct {
	tools map[string]*Tool
	out   map[string]bool

	mu     sync.Mutex
	state  map[string]any
	shadow map[string]any
	calls  []Call
}

// Open compiles a Def's tools (once per process for the same tools over
// the same shape) and lays its state.
func Open(def Def) (*World, error) {
	st, err := objectState(def.State)
	if err != nil {
		return nil, fmt.Errorf("state: %w", err)
	}
	tools, err := compiled(ShapeOf(st), def.Tools)
	if err != nil {
		return nil, err
	}
	w := &World{tools: tools, out: map[string]bool{}, state: st}
	for _, d := range def.Tools {
		w.out[d.Name] = d.Outbound
	}
	if len(def.Clean) > 0 {
		if w.shadow, err = objectState(def.Clean); err != nil {
			return nil, fmt.Errorf("clean state: %w", err)
		}
	}
	return w, nil
}

func objectState(raw json.RawMessage) (map[string]any, error) {
	if len(raw) > MaxStateBytes {
		return nil, fmt.Errorf("%d bytes is more than the %d a state may hold", len(raw), MaxStateBytes)
	}
	v, err := Decode(raw)
	if err != nil {
		return nil, err
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, errors.New("a state must be an object")
	}
	return m, nil
}

// cache keeps compiled tool sets by the hash of their definitions and
// the state's shape: a task's programs are compiled once per process.
var cache, _ = lru.New[[32]byte, map[string]*Tool](256)

func compiled(shape *Shape, defs []ToolDef) (map[string]*Tool, error) {
	raw, _ := json.Marshal(defs)
	key := sha256.Sum256(append(append(raw, 0), shape.String()...))
	if t, ok := cache.Get(key); ok {
		return t, nil
	}
	out := make(map[string]*Tool, len(defs))
	var errs []error
	for _, d := range defs {
		t, probs := CompileTool(shape, d)
		for _, p := range probs {
			errs = append(errs, fmt.Errorf("tool %s: %w", d.Name, p))
		}
		out[d.Name] = t
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	cache.Add(key, out)
	return out, nil
}

// Serves reports whether the world answers a tool.
func (w *World) Serves(tool string) bool { _, ok := w.tools[tool]; return ok }

// Call answers one call of an environment tool for a role. A failed call
// (bad arguments, a guard, a failing expression) is an Answer with Error:
// an outcome the agent reads, never a Go error; a Go error means ctx ended.
func (w *World) Call(ctx context.Context, role, tool string, raw json.RawMessage) (Answer, error) {
	t, ok := w.tools[tool]
	if !ok {
		return Answer{Error: fmt.Sprintf("unknown tool %q", tool)}, nil
	}
	args, err := callArgs(raw)
	if err != nil {
		return Answer{Error: "arguments: " + err.Error()}, nil
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	next, out, err := t.run(ctx, w.state, args, role)
	var te errTool
	switch {
	case errors.As(err, &te):
		return Answer{Error: te.msg}, nil
	case err != nil:
		return Answer{}, err
	}
	a := Answer{Output: out}
	for _, u := range t.def.Updates {
		top := u.Path
		if i := indexDot(top); i >= 0 {
			top = top[:i]
		}
		a.Changes = diff(top, w.state[top], next[top], a.Changes)
	}
	a.Changes = dedupe(a.Changes)
	if w.shadow != nil {
		snext, sout, err := t.run(ctx, w.shadow, args, role)
		switch {
		case errors.As(err, &te):
			sout = "error: " + te.msg
		case err != nil:
			return Answer{}, err
		default:
			w.shadow = snext
		}
		if sout != out {
			a.Shadow = &sout
		}
	}
	w.state = next
	w.log(role, tool, raw, out)
	return a, nil
}

// Record logs a call of a tool the world does not serve (a built-in tool
// of the toolbox) so that checks see it among the calls.
func (w *World) Record(role, tool string, raw json.RawMessage, output string, outbound bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.out[tool] = w.out[tool] || outbound
	w.log(role, tool, raw, output)
}

func (w *World) log(role, tool string, raw json.RawMessage, output string) {
	if len(raw) == 0 || string(raw) == "null" {
		raw = json.RawMessage("{}")
	}
	w.calls = append(w.calls, Call{Seq: len(w.calls) + 1, Role: role, Tool: tool, Args: append(json.RawMessage(nil), raw...),
		Result: output, Outbound: w.out[tool]})
}

// Final returns the state as it stands and every call carried out.
func (w *World) Final() (Final, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	raw, err := Encode(w.state)
	if err != nil {
		return Final{}, fmt.Errorf("state: %w", err)
	}
	return Final{State: raw, Calls: append([]Call(nil), w.calls...)}, nil
}

// callArgs decodes a call's arguments: an object, or nothing.
func callArgs(raw json.RawMessage) (map[string]any, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return map[string]any{}, nil
	}
	v, err := Decode(raw)
	if err != nil {
		return nil, fmt.Errorf("not JSON: %w", err)
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, errors.New("not a JSON object")
	}
	return m, nil
}

func indexDot(s string) int {
	for i := range len(s) {
		if s[i] == '.' {
			return i
		}
	}
	return -1
}

// dedupe drops changes listed twice (two updates below one top-level key).
func dedupe(in []Change) []Change {
	seen := map[string]bool{}
	out := in[:0]
	for _, c := range in {
		if !seen[c.Path] {
			seen[c.Path] = true
			out = append(out, c)
		}
	}
	return out
}
