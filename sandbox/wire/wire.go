// Package wire is the line-delimited JSON protocol between every sandbox
// backend (Docker, Kubernetes) and the toolbox binary running inside the
// sandbox (cmd/toolbox). The host writes one Request per line on the
// toolbox's stdin; the toolbox answers each with one Response per line on
// its stdout, carrying the same ID.
//
// The package imports nothing heavier than the sandbox types so that the
// static in-sandbox binary stays small.
package wire

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/killchain/killchain/sandbox"
)

// Line limits of the protocol. A request carries a run's planted files; a
// response at most a workspace (sandbox.FileReader, base64 in JSON) or a
// final state. Each side refuses a longer line instead of reading it: a
// sandbox that sends one is broken, and the host's memory stays bounded.
const (
	MaxRequest  = 256 << 20
	MaxResponse = 64 << 20
)

// ErrLineTooLong is ReadLine's error for a line over its limit.
var ErrLineTooLong = errors.New("line over the protocol's limit")

// ReadLine reads one newline-terminated line of at most limit bytes (the
// newline included). A longer line is ErrLineTooLong once limit bytes are
// read, never kept whole; a last line without a newline is returned at EOF.
func ReadLine(r *bufio.Reader, limit int) ([]byte, error) {
	var buf []byte
	for {
		chunk, err := r.ReadSlice('\n')
		if len(buf)+len(chunk) > limit {
			return nil, fmt.Errorf("%w (%d bytes)", ErrLineTooLong, limit)
		}
		if need := len(buf) + len(chunk); need > cap(buf) {
			// Double, not append's gentler growth: a long line then costs
			// about twice its length in allocations, not five times.
			grown := make([]byte, len(buf), min(limit, max(need, 2*cap(buf))))
			copy(grown, buf)
			buf = grown
		}
		buf = append(buf, chunk...)
		switch {
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case errors.Is(err, io.EOF) && len(buf) > 0:
			return buf, nil
		}
		return buf, err
	}
}

// Operations a Request may name.
const (
	// OpPrepare restores the pristine snapshot into the state folder, removes
	// the paths in Remove, then lays Env (files, links, seeded memory, speech clips).
	OpPrepare = "prepare"
	// OpCall runs Tool for Agent with Args.
	OpCall = "call"
	// OpState reads the final state (Result is a sandbox.State).
	OpState = "state"
	// OpProbe is a test-only hardening probe; the toolbox refuses it unless
	// started with -allow-probe. See cmd/toolbox/probe.go.
	OpProbe = "probe"
	// OpFiles copies the folder Path (relative to the state folder) out
	// (Result is a sandbox.Folder).
	OpFiles = "files"
	// OpMCP carries one newline-delimited JSON-RPC message (Frame) from
	// Agent's MCP client to its session with the MCP server Server, started
	// at its first message; an empty Frame ends the session. The toolbox
	// acknowledges it at once (Result true); the session's own messages come
	// back as frame responses (see Response).
	OpMCP = "mcp"
)

// Request is one line the host sends.
type Request struct {
	ID    uint64          `json:"id"`
	Op    string          `json:"op"`
	Agent string          `json:"agent,omitempty"`
	Tool  string          `json:"tool,omitempty"`
	Args  json.RawMessage `json:"args,omitempty"`
	// Env is the part of the run's environment that differs from the snapshot.
	Env *sandbox.Env `json:"env,omitempty"`
	// Remove lists snapshot paths (relative to the state folder) the run's
	// environment does not have.
	Remove []string `json:"remove,omitempty"`
	// Probe names the probe for OpProbe ("net", "status", "write", "fork",
	// "alloc", "env", "secrets", "sleep", "flood") and Arg its parameter.
	Probe string `json:"probe,omitempty"`
	Arg   int    `json:"arg,omitempty"`
	// Path is OpFiles' folder.
	Path string `json:"path,omitempty"`
	// Server and Frame are OpMCP's session and message.
	Server string          `json:"server,omitempty"`
	Frame  json.RawMessage `json:"frame,omitempty"`
}

// Response is one line the toolbox answers with. Error is an infrastructure
// failure inside the sandbox (a broken state folder, a bad request); a
// tool-level failure the model reads travels inside Result as a
// sandbox.Result with its Error field set.
//
// A frame response answers no request: ID 0, Server and Agent naming an
// MCP session, Frame one JSON-RPC message the server sent its client, and
// Error, when set, why the session ended.
type Response struct {
	ID     uint64          `json:"id"`
	Result json.RawMessage `json:"result,omitempty"`
	Error  string          `json:"error,omitempty"`
	Server string          `json:"server,omitempty"`
	Agent  string          `json:"agent,omitempty"`
	Frame  json.RawMessage `json:"frame,omitempty"`
}

// IsFrame reports whether a response is an MCP session's frame.
func (r Response) IsFrame() bool { return r.ID == 0 && r.Server != "" }

// ProbeResult is what OpProbe returns.
type ProbeResult struct {
	Lines []string `json:"lines,omitempty"` // interfaces, status lines, environment
	UID   int      `json:"uid"`
	Count int      `json:"count,omitempty"` // processes spawned, MiB allocated
	Err   string   `json:"err,omitempty"`   // the error the probe met, if any
}
