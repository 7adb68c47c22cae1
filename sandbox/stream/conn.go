// Package stream speaks the toolbox's line-delimited JSON protocol
// (sandbox/wire) over a byte stream to one sandbox: the attached
// stdin/stdout of a Docker container, or the exec stream of a Kubernetes
// pod. Both backends share it, so a tool call means the same thing, and
// fails the same way, on either.
package stream

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/killchain/killchain/sandbox"
	"github.com/killchain/killchain/sandbox/wire"
)

// Errors a sandbox stream reports; the run is then a sandbox error, never an
// outcome.
var (
	ErrTimeout = errors.New("sandbox did not answer in time")
	ErrClosed  = errors.New("sandbox is closed")
	// ErrProtocol is a stream that broke the protocol: a response line over
	// wire.MaxResponse, one that is not JSON, or an answer to no request in
	// flight. Nothing it says after that is trusted.
	ErrProtocol = errors.New("sandbox broke the protocol")
)

// Conn carries requests to the toolbox and hands each response line to the
// request waiting for its ID.
type Conn struct {
	w      io.WriteCloser
	wmu    sync.Mutex
	nextID atomic.Uint64

	mu        sync.Mutex
	pending   map[uint64]chan wire.Response
	abandoned map[uint64]bool    // timed out or cancelled: a late answer is expected
	broken    error              // set once the stream ended or a request was abandoned
	sessions  map[string]*frames // open MCP sessions, by server and agent (mcp.go)

	done   chan struct{}
	ended  error
	closed atomic.Bool // Close was called: the request side is ours to end
}

// endWait bounds how long a request whose write failed waits for the
// stream's end to be explained (a backend's diagnosis inspects the
// container or pod).
const endWait = 20 * time.Second

// New starts reading responses from r; requests are written to w. When r
// ends, onEnd is called once with the read error (nil at a clean EOF) to
// explain why (it may inspect the container or pod); its error is what
// later requests return. A stream that breaks the protocol ends at once
// with ErrProtocol (marked sandbox.FaultProtocol): r is closed and onEnd is
// not asked, since the sandbox may still run.
func New(w io.WriteCloser, r io.Reader, onEnd func(streamErr error) error) *Conn {
	return newConn(w, r, wire.MaxResponse, onEnd)
}

func newConn(w io.WriteCloser, r io.Reader, maxLine int, onEnd func(streamErr error) error) *Conn {
	c := &Conn{w: w, pending: map[uint64]chan wire.Response{}, abandoned: map[uint64]bool{}, done: make(chan struct{})}
	go func() {
		br := bufio.NewReaderSize(r, 64<<10)
		var streamErr, violation error
		for violation == nil {
			line, err := wire.ReadLine(br, maxLine)
			if errors.Is(err, wire.ErrLineTooLong) {
				violation = fmt.Errorf("response line: %w", err)
				break
			}
			if len(bytes.TrimSpace(line)) > 0 {
				var resp wire.Response
				if jerr := json.Unmarshal(line, &resp); jerr != nil {
					violation = fmt.Errorf("bad response line: %w", jerr)
					break
				}
				if resp.IsFrame() {
					c.deliverFrame(resp)
				} else {
					violation = c.deliver(resp)
				}
			}
			if err != nil {
				if !errors.Is(err, io.EOF) {
					streamErr = err
				}
				break
			}
		}
		if cl, ok := r.(io.Closer); ok {
			cl.Close()
		}
		if violation != nil {
			c.ended = sandbox.Failf(sandbox.FaultProtocol, "%w: %w", ErrProtocol, violation)
		} else {
			c.ended = onEnd(streamErr)
		}
		c.mu.Lock()
		if c.broken == nil {
			c.broken = c.ended
		}
		c.mu.Unlock()
		c.endSessions(c.ended)
		close(c.done)
	}()
	return c
}

// Done is closed when the stream has ended; Ended then says why.
func (c *Conn) Done() <-chan struct{} { return c.done }

// Ended is why the stream ended, valid once Done is closed.
func (c *Conn) Ended() error { return c.ended }

// deliver hands a response to the request waiting for it. An answer to no
// request in flight (a second answer, an unknown ID) is a protocol
// violation; a late answer to an abandoned request is dropped.
func (c *Conn) deliver(resp wire.Response) error {
	c.mu.Lock()
	ch, ok := c.pending[resp.ID]
	delete(c.pending, resp.ID)
	late := c.abandoned[resp.ID]
	delete(c.abandoned, resp.ID)
	c.mu.Unlock()
	switch {
	case ok:
		ch <- resp
	case !late:
		return fmt.Errorf("an answer to no request in flight (id %d)", resp.ID)
	}
	return nil
}

// Send writes a request and returns its ID and the channel its response
// arrives on.
func (c *Conn) Send(req wire.Request) (uint64, <-chan wire.Response, error) {
	c.mu.Lock()
	if c.broken != nil {
		err := c.broken
		c.mu.Unlock()
		return 0, nil, err
	}
	req.ID = c.nextID.Add(1)
	ch := make(chan wire.Response, 1)
	c.pending[req.ID] = ch
	c.mu.Unlock()
	line, err := json.Marshal(req)
	if err != nil {
		c.forget(req.ID)
		return 0, nil, fmt.Errorf("encode request: %w", err)
	}
	c.wmu.Lock()
	_, err = c.w.Write(append(line, '\n'))
	c.wmu.Unlock()
	if err != nil {
		c.forget(req.ID)
		// A write fails when the stream is ending: once its end is
		// explained (OOM kill, deleted pod), that is the error.
		if !c.closed.Load() {
			select {
			case <-c.done:
				return 0, nil, c.ended
			case <-time.After(endWait):
			}
		}
		return 0, nil, fmt.Errorf("write request: %w", err)
	}
	return req.ID, ch, nil
}

func (c *Conn) forget(id uint64) {
	c.mu.Lock()
	delete(c.pending, id)
	c.mu.Unlock()
}

// Abandon marks the connection unusable (a request timed out or was
// cancelled: later responses could no longer be trusted to match).
func (c *Conn) Abandon(id uint64, err error) {
	c.mu.Lock()
	if _, ok := c.pending[id]; ok {
		c.abandoned[id] = true
	}
	delete(c.pending, id)
	if c.broken == nil {
		c.broken = err
	}
	c.mu.Unlock()
}

// Close ends the request side; the toolbox sees EOF on stdin and exits.
func (c *Conn) Close() error {
	c.closed.Store(true)
	c.wmu.Lock()
	defer c.wmu.Unlock()
	return c.w.Close()
}

// Tail keeps the last few KiB written to it (the toolbox's stderr).
type Tail struct {
	mu  sync.Mutex
	buf []byte
}

const tailMax = 4 << 10

func (t *Tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if len(t.buf) > tailMax {
		t.buf = append([]byte(nil), t.buf[len(t.buf)-tailMax:]...)
	}
	return len(p), nil
}

// String is the kept tail, trimmed.
func (t *Tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return strings.TrimSpace(string(t.buf))
}
