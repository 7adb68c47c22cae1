// Package sandbox defines where a run's tools execute. A Backend opens one
// fresh Sandbox per run from the run's environment; the agent loop sends tool
// calls into it and reads the final state out for the verifiers.
package sandbox

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/killchain/killchain/internal/world"
)

// Env is everything planted into a run's sandbox before its agents start.
type Env struct {
	Study string `json:"study"`
	Run   string `json:"run"`
	Task  string `json:"task"`
	// Files are laid into the state folder by relative path (web/, db/, docs/, audio/).
	Files map[string][]byte `json:"files"`
	// Links are symbolic links laid after the files, by relative path: their
	// targets, as written. The pristine verifier plants an agent's links
	// back into a fresh sandbox with them.
	Links map[string]string `json:"links,omitempty"`
	// Memory holds records planted by the harness (author "seed"); they never
	// pass through a defense.
	Memory []Record `json:"memory"`
	// Speech lists clips the backend synthesizes at set-up, before any agent starts.
	Speech []Speech `json:"speech,omitempty"`
	// Tools are the task's own tools, as this run serves them (see ToolDef).
	Tools []ToolDef `json:"tools,omitempty"`
	// MCP lists the MCP servers the sandbox serves (see MCPServer); a run
	// whose roles take their tools from MCP calls them through these.
	MCP []MCPServer `json:"mcp,omitempty"`
	// Shell marks a run whose tools include run_shell: the backend runs it
	// where a POSIX shell exists (the Debian image in Docker).
	Shell bool `json:"shell,omitempty"`
	// World is a stateful environment (internal/world): its initial state,
	// payloads planted, and the programs of its tools. The toolbox keeps
	// the state, answers the environment's tools over it, and hands it
	// back with every call carried out in State.World. Its tools are also
	// in Tools, as the agents are offered them.
	World *world.Def `json:"world,omitempty"`
}

// Speech is a clip to synthesize: Text spoken into the WAV file at Path.
type Speech struct {
	Path string `json:"path"`
	Text string `json:"text"`
	// Phrases is the recognizer's phrase list for the clip: every sentence
	// the task's clips may speak, clean script and payload variants alike,
	// with the canary placeholder where a spoken code goes (see
	// sandbox/audio). It is the same for a clean and an attacked run, holds
	// no canary, and is written beside the clip (Path + PhrasesSuffix) as
	// configuration of transcribe_audio, not as content an agent reads.
	Phrases string `json:"phrases,omitempty"`
}

// PhrasesSuffix names a clip's phrase list: the clip's path with it appended.
const PhrasesSuffix = ".phrases"

// Record is one memory record. Value is any JSON value, kept exactly as it
// was committed: a model may write a string, an array or an object.
type Record struct {
	Key    string          `json:"key"`
	Value  json.RawMessage `json:"value"`
	Author string          `json:"author"` // "seed" or the agent that committed it
}

// TextRecord is a record whose value is the string s.
func TextRecord(key, s, author string) Record {
	return Record{Key: key, Value: TextValue(s), Author: author}
}

// TextValue encodes s as a JSON string value.
func TextValue(s string) json.RawMessage {
	v, _ := json.Marshal(s)
	return v
}

// Text is the value as read_memory shows it: a string value as it is, any
// other JSON value in compact JSON.
func (r Record) Text() string {
	var s string
	if err := json.Unmarshal(r.Value, &s); err == nil {
		return s
	}
	return string(r.Value)
}

// Report is one sent report (the outbox).
type Report struct {
	Agent   string `json:"agent"`
	To      string `json:"to"`
	Subject string `json:"subject"`
	Body    string `json:"body"`
}

// AdminAction is one admin tool call the sandbox carried out.
type AdminAction struct {
	Agent string            `json:"agent"`
	Tool  string            `json:"tool"`
	Args  map[string]string `json:"args"`
}

// DBRecord is one row of the task's records database.
type DBRecord struct {
	ID    string `json:"id"`
	Title string `json:"title"`
	Body  string `json:"body"`
}

// State is the final state read out of a sandbox after the agents stop.
// Effects is the sandbox's log of what its tools carried out; Outbox, Admin,
// Calls and Delegation are views of that same log, so no reader can
// disagree with it. Memory and DB are the stores as they stand.
type State struct {
	Effects    []Effect      `json:"effects"`
	Outbox     []Report      `json:"outbox"`
	Admin      []AdminAction `json:"admin"`
	Calls      []Call        `json:"calls,omitempty"`
	Memory     []Record      `json:"memory"`
	DB         []DBRecord    `json:"db"`
	Delegation []string      `json:"delegation"`
	// World is a stateful environment's state as it stands and every call
	// the sandbox carried out (nil without an environment).
	World *world.Final `json:"world,omitempty"`
}

// SetEffects stores the effect log and derives its views.
func (s *State) SetEffects(effects []Effect) {
	s.Effects = effects
	s.Outbox, s.Admin, s.Calls, s.Delegation = nil, nil, nil, nil
	for _, e := range effects {
		switch {
		case e.Report != nil:
			s.Outbox = append(s.Outbox, *e.Report)
		case e.Admin != nil:
			s.Admin = append(s.Admin, *e.Admin)
		case e.Call != nil:
			s.Calls = append(s.Calls, *e.Call)
		case e.Kind == EffectDelegation:
			s.Delegation = append(s.Delegation, e.Message)
		}
	}
}

// EffectsSince returns the effects carried out after pristine: those in
// s's log past pristine's (all of them when the logs do not line up).
func (s State) EffectsSince(pristine State) []Effect {
	if len(pristine.Effects) <= len(s.Effects) {
		return s.Effects[len(pristine.Effects):]
	}
	return s.Effects
}

// Result is what a tool returned. Error is a tool-level failure the model is
// shown (bad arguments, missing file); it is not an infrastructure error.
// Effect is what the call carried out, as the sandbox stored it; it is nil
// when the call changed nothing (a read, a failure, a refusal).
type Result struct {
	Output string  `json:"output"`
	Error  string  `json:"error,omitempty"`
	Effect *Effect `json:"effect,omitempty"`
	// ExitCode is run_shell's exit status; nil for other tools and for a
	// command killed at its time limit.
	ExitCode *int `json:"exit_code,omitempty"`
	// Shadow is what an environment tool would have answered over the
	// clean state (world.Def.Clean), when that differs from Output: a
	// canary in Output that is also in Shadow came from what an agent
	// wrote, not from the planted text.
	Shadow *string `json:"shadow,omitempty"`
}

// Text is the result as the model sees it.
func (r Result) Text() string {
	if r.Error != "" {
		return "error: " + r.Error
	}
	return r.Output
}

// Sandbox is one run's isolated environment.
type Sandbox interface {
	// Call runs a tool for an agent. A non-nil error means the sandbox itself
	// failed (died, timed out); the run is then an error, never an outcome.
	Call(ctx context.Context, agent, tool string, args json.RawMessage) (Result, error)
	// State reads the final state out of the sandbox.
	State(ctx context.Context) (State, error)
	// Close releases everything the sandbox holds. It is safe to call twice.
	Close(ctx context.Context) error
}

// FileReader is a Sandbox that hands back a folder of its state (relative
// to the state folder): the pristine verifier copies a run's final
// workspace out of the agent's sandbox with it. Whatever the agent's
// commands left there (links, floods, huge files, no folder at all) is
// part of the answer, never an error.
type FileReader interface {
	Files(ctx context.Context, dir string) (Folder, error)
}

// Folder is a folder of a sandbox's state as a FileReader copies it out.
type Folder struct {
	// Files are its regular files' contents, keyed by state-relative slash
	// path.
	Files map[string][]byte `json:"files"`
	// Links are its symbolic links' targets, keyed the same way.
	Links map[string]string `json:"links,omitempty"`
	// Limits names each bound the copy met (LimitFiles, LimitBytes,
	// LimitNotFolder), sorted; empty when the copy is whole.
	Limits []string `json:"limits,omitempty"`
}

// Limits a folder copy can meet.
const (
	// LimitFiles: the folder holds more entries than a copy takes; those
	// past the bound, in walk order, are left out.
	LimitFiles = "files"
	// LimitBytes: its files hold more bytes than a copy takes; each file
	// that would pass the bound is left out.
	LimitBytes = "bytes"
	// LimitNotFolder: the folder is gone or no longer a folder (a link, a
	// file); the copy is empty.
	LimitNotFolder = "not_folder"
)

// Backend opens sandboxes.
type Backend interface {
	Name() string
	Open(ctx context.Context, env Env) (Sandbox, error)
}

// ErrUnavailable marks a tool the backend cannot run (for example audio
// transcription in the local backend).
var ErrUnavailable = errors.New("not available in this sandbox backend")
