package sandbox

import (
	"bytes"
	"encoding/json"
	"sort"
	"strconv"

	"github.com/killchain/killchain/internal/world"
)

// EffectKind names what a tool call changed in the sandbox.
type EffectKind string

// Effect kinds.
const (
	// EffectMemory is a record committed to memory by an agent.
	EffectMemory EffectKind = "memory_write"
	// EffectDelegation is a hand-over message queued for the next agent.
	EffectDelegation EffectKind = "delegation"
	// EffectReport is a report placed in the outbox: it leaves the sandbox.
	EffectReport EffectKind = "report"
	// EffectAdmin is an admin action that took effect: it leaves the sandbox.
	EffectAdmin EffectKind = "admin"
	// EffectCall is a call of a task-defined outbound tool that took
	// effect: it leaves the sandbox.
	EffectCall EffectKind = "call"
	// EffectFiles is a change to workspace files (write_file, run_shell):
	// each file added, modified or deleted, with its new content's hash. It
	// stays inside the sandbox.
	EffectFiles EffectKind = "files"
	// EffectState is an environment tool's update of the state (internal
	// world): each place it changed, with its new value. It stays inside
	// the sandbox; an outbound environment tool's call is an EffectCall
	// that carries its Changes too.
	EffectState EffectKind = "state"
)

// Effect is what one tool call carried out, in the form the sandbox stored
// it: never the model's raw arguments. Exactly one of Record, Report, Admin,
// Call, Files or Message is set, by Kind (a files effect may also carry the
// Command that made the changes).
type Effect struct {
	Seq     int          `json:"seq"` // 1, 2, … in the order the sandbox carried them out
	Kind    EffectKind   `json:"kind"`
	Agent   string       `json:"agent"`
	Tool    string       `json:"tool"`
	Record  *Record      `json:"record,omitempty"`
	Report  *Report      `json:"report,omitempty"`
	Admin   *AdminAction `json:"admin,omitempty"`
	Call    *Call        `json:"call,omitempty"`
	Message string       `json:"message,omitempty"`
	Files   []FileChange `json:"files,omitempty"`
	Command string       `json:"command,omitempty"`
	// Changes are the places of an environment's state the call changed
	// (EffectState, or an outbound EffectCall of an environment tool).
	Changes []world.Change `json:"changes,omitempty"`
}

// File change kinds.
const (
	FileAdded    = "added"
	FileModified = "modified"
	FileDeleted  = "deleted"
)

// FileChange is one workspace file a call changed, as the sandbox found it
// after the call: its path relative to the workspace, what happened to it,
// and the sha256 and size of its new content ("" and 0 when deleted).
type FileChange struct {
	Path   string `json:"path"`
	Change string `json:"change"`
	SHA256 string `json:"sha256,omitempty"`
	Size   int64  `json:"size"`
}

// Outbound reports whether the effect left the sandbox (a report, an admin
// action or a task-defined outbound call): a canary in it is the Executed
// stage.
func (e Effect) Outbound() bool {
	return e.Kind == EffectReport || e.Kind == EffectAdmin || e.Kind == EffectCall
}

// Strings returns every string the effect stored, in a fixed order: a
// record's key and each string inside its value (object keys included), a
// report's fields that are sent, an admin action's or a task-defined
// outbound call's arguments (by name), a files
// effect's command and paths, a state update's new values, a message.
// For an outbound call these are the fields that leave (its arguments),
// never its changes to the state (StateStrings).
// Canary search runs over these, one by one or joined.
func (e Effect) Strings() []string {
	var out []string
	switch {
	case e.Record != nil:
		out = append(out, e.Record.Key)
		out = append(out, JSONStrings(e.Record.Value)...)
	case e.Report != nil:
		out = append(out, e.Report.To, e.Report.Subject, e.Report.Body)
	case e.Admin != nil:
		out = append(out, argValues(e.Admin.Args)...)
	case e.Call != nil:
		out = append(out, argValues(e.Call.Args)...)
	case e.Kind == EffectFiles:
		out = append(out, e.Command)
		for _, f := range e.Files {
			out = append(out, f.Path)
		}
	case e.Kind == EffectState:
		out = e.StateStrings()
	default:
		out = append(out, e.Message)
	}
	return out
}

// StateStrings returns every string an effect wrote into an environment's
// state: the new values of the places it changed.
func (e Effect) StateStrings() []string {
	var out []string
	for _, c := range e.Changes {
		out = append(out, c.Strings()...)
	}
	return out
}

// argValues returns the values of args in the order of their names.
func argValues(args map[string]string) []string {
	keys := make([]string, 0, len(args))
	for k := range args {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	out := make([]string, 0, len(keys))
	for _, k := range keys {
		out = append(out, args[k])
	}
	return out
}

// JSONStrings returns every string inside a JSON value, object keys
// included, in the order they stand in the stored document (the order
// read_memory shows them); numbers, booleans and null are their JSON text.
// Invalid JSON is returned whole.
func JSONStrings(raw json.RawMessage) []string {
	if len(raw) == 0 {
		return nil
	}
	if !json.Valid(raw) {
		return []string{string(raw)}
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var out []string
	for {
		tok, err := dec.Token()
		if err != nil {
			return out
		}
		switch v := tok.(type) {
		case string:
			out = append(out, v)
		case json.Number:
			out = append(out, v.String())
		case bool:
			out = append(out, strconv.FormatBool(v))
		case nil:
			out = append(out, "null")
		}
	}
}

// ArgText is a tool argument as the sandbox stores it in a text field: a
// JSON string as its text, null as "", any other value (array, object,
// number) as its compact JSON. The agent loop filters keys by the same
// rule, so what write_filter sees is what the toolbox commits.
func ArgText(raw json.RawMessage) string {
	var s string
	if err := json.Unmarshal(raw, &s); err == nil {
		return s
	}
	if len(bytes.TrimSpace(raw)) == 0 || string(bytes.TrimSpace(raw)) == "null" {
		return ""
	}
	var buf bytes.Buffer
	if err := json.Compact(&buf, raw); err != nil {
		return string(raw)
	}
	return buf.String()
}
