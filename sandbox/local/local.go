// Package local runs a run's tools in-process over a fresh temporary folder.
// It is the backend for machines without Docker: the tool code is the same
// toolbox the Docker backend runs inside its containers, but nothing isolates
// the run from the host, and audio transcription is not available.
package local

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"sync"

	"github.com/killchain/killchain/sandbox"
	"github.com/killchain/killchain/sandbox/toolbox"
)

// Backend opens local sandboxes under Root (the system temp folder when empty).
type Backend struct {
	Root string
	// Transcriber, when set, makes transcribe_audio available.
	Transcriber toolbox.Transcriber
}

var _ sandbox.Backend = (*Backend)(nil)

// Name returns "local".
func (b *Backend) Name() string { return "local" }

// Open prepares a fresh folder for one run.
func (b *Backend) Open(ctx context.Context, env sandbox.Env) (sandbox.Sandbox, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if len(env.Speech) > 0 && b.Transcriber == nil {
		// The clip cannot be synthesized here; the tool will say so when called.
		env.Speech = nil
	}
	dir, err := os.MkdirTemp(b.Root, "killchain-"+env.Run+"-")
	if err != nil {
		return nil, fmt.Errorf("local sandbox: %w", err)
	}
	box := toolbox.New(dir, b.Transcriber)
	if err := box.Prepare(env); err != nil {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("local sandbox: %w", err)
	}
	return &Sandbox{box: box, dir: dir}, nil
}

// Sandbox is one run's folder.
type Sandbox struct {
	box    *toolbox.Box
	dir    string
	closed sync.Once
}

// Call runs a tool in-process.
func (s *Sandbox) Call(ctx context.Context, agent, tool string, args json.RawMessage) (sandbox.Result, error) {
	if err := ctx.Err(); err != nil {
		return sandbox.Result{}, err
	}
	return s.box.Call(agent, tool, args)
}

// State reads the final state.
func (s *Sandbox) State(ctx context.Context) (sandbox.State, error) {
	return s.box.State()
}

// Close removes the folder.
func (s *Sandbox) Close(ctx context.Context) error {
	var err error
	s.closed.Do(func() { err = os.RemoveAll(s.dir) })
	return err
}
