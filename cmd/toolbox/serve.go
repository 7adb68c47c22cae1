package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/killchain/killchain/sandbox"
	"github.com/killchain/killchain/sandbox/mcpbox"
	"github.com/killchain/killchain/sandbox/toolbox"
	"github.com/killchain/killchain/sandbox/wire"
)

type config struct {
	state, pristine string
	synth, asr      string
	allowProbe      bool
}

type server struct {
	cfg config
	box *toolbox.Box
	mcp mcpSessions
	wmu sync.Mutex // held while a response line is written
}

// serve answers requests until stdin closes or ctx ends.
func serve(ctx context.Context, cfg config, stdin io.Reader, stdout io.Writer) error {
	s := &server{cfg: cfg}
	var tr toolbox.Transcriber
	if cfg.asr != "" {
		tr = execTranscriber{argv: strings.Fields(cfg.asr)}
	}
	s.box = toolbox.New(cfg.state, tr)
	if guarded {
		s.box.Confine = toolbox.Confine{KillAll: true}
	}
	done := make(chan error, 1)
	go func() { done <- s.loop(stdin, stdout) }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
		return nil
	}
}

func (s *server) loop(stdin io.Reader, stdout io.Writer) error {
	in := bufio.NewReaderSize(stdin, 64<<10)
	out := bufio.NewWriterSize(stdout, 64<<10)
	write := func(line []byte) error {
		s.wmu.Lock()
		defer s.wmu.Unlock()
		if _, err := out.Write(line); err != nil {
			return err
		}
		return out.Flush()
	}
	s.mcp.emit = func(resp wire.Response) error { return write(encode(resp)) }
	for {
		line, err := wire.ReadLine(in, wire.MaxRequest)
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("read request: %w", err)
		}
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		if flood, ok := s.flood(line); ok {
			// The test-only flood probe: a response line longer than the
			// host accepts, written as a broken toolbox would.
			s.wmu.Lock()
			err := writeFlood(out, flood)
			s.wmu.Unlock()
			if err != nil {
				return fmt.Errorf("write response: %w", err)
			}
			continue
		}
		if err := write(encode(s.handle(line))); err != nil {
			return fmt.Errorf("write response: %w", err)
		}
	}
}

// flood reports whether line is a flood probe the toolbox may answer, and
// its size in MiB.
func (s *server) flood(line []byte) (int, bool) {
	var req wire.Request
	if !s.cfg.allowProbe || json.Unmarshal(line, &req) != nil || req.Op != wire.OpProbe || req.Probe != "flood" {
		return 0, false
	}
	return req.Arg, true
}

// encode is a response's line. One over wire.MaxResponse, which the host
// would refuse as a broken stream, is replaced by an error saying so.
func encode(resp wire.Response) []byte {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	err := enc.Encode(resp)
	if err == nil && buf.Len() <= wire.MaxResponse {
		return buf.Bytes()
	}
	if err == nil {
		err = fmt.Errorf("response of %d bytes is over the protocol's limit of %d", buf.Len(), wire.MaxResponse)
	}
	line, _ := json.Marshal(wire.Response{ID: resp.ID, Error: fmt.Sprintf("encode response: %v", err)})
	return append(line, '\n')
}

func (s *server) handle(line []byte) wire.Response {
	var req wire.Request
	if err := json.Unmarshal(line, &req); err != nil {
		return wire.Response{Error: fmt.Sprintf("bad request: %v", err)}
	}
	v, err := s.dispatch(req)
	if err != nil {
		return wire.Response{ID: req.ID, Error: err.Error()}
	}
	raw, err := json.Marshal(v)
	if err != nil {
		return wire.Response{ID: req.ID, Error: fmt.Sprintf("encode result: %v", err)}
	}
	return wire.Response{ID: req.ID, Result: raw}
}

func (s *server) dispatch(req wire.Request) (any, error) {
	switch req.Op {
	case wire.OpPrepare:
		return true, s.prepare(req)
	case wire.OpCall:
		return s.box.Call(req.Agent, req.Tool, req.Args)
	case wire.OpState:
		return s.box.State()
	case wire.OpFiles:
		return s.box.Files(req.Path)
	case wire.OpMCP:
		return true, s.mcp.frame(req)
	case wire.OpProbe:
		if !s.cfg.allowProbe {
			return nil, errors.New("probe is disabled")
		}
		return probe(s.cfg, req.Probe, req.Arg)
	}
	return nil, fmt.Errorf("unknown op %q", req.Op)
}

// prepare restores the pristine snapshot, removes what the run lacks, then
// plants the run's own files, speech clips and seeded memory.
func (s *server) prepare(req wire.Request) error {
	if err := copyTree(s.cfg.pristine, s.cfg.state); err != nil {
		return fmt.Errorf("restore snapshot: %w", err)
	}
	for _, rel := range req.Remove {
		p, err := sandbox.Join(s.cfg.state, rel)
		if err != nil {
			return err
		}
		if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("remove %s: %w", rel, err)
		}
	}
	if req.Env == nil {
		return nil
	}
	env := *req.Env
	if err := s.box.Prepare(env); err != nil {
		return err
	}
	s.mcp.setServers(mcpbox.New(s.box, env))
	for _, sp := range env.Speech {
		if err := s.speak(sp.Text, sp.Path); err != nil {
			return err
		}
	}
	return nil
}

// copyTree copies the regular files and folders under src into dst. A
// missing src is an empty snapshot.
func copyTree(src, dst string) error {
	return filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if errors.Is(err, fs.ErrNotExist) && p == src {
			return fs.SkipAll
		}
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, p)
		if err != nil {
			return err
		}
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		if !d.Type().IsRegular() {
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(target, data, 0o644)
	})
}
