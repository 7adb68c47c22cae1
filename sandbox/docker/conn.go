package docker

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/moby/moby/api/pkg/stdcopy"
	"github.com/moby/moby/client"

	"github.com/killchain/killchain/sandbox/docker/wire"
)

// conn speaks the wire protocol over a container's attached stdin/stdout.
// The container has no TTY, so Docker multiplexes stdout and stderr on the
// stream; a goroutine demultiplexes them and hands each response line to
// the request waiting for its ID.
type conn struct {
	hj     client.HijackedResponse
	wmu    sync.Mutex
	nextID atomic.Uint64

	mu      sync.Mutex
	pending map[uint64]chan wire.Response
	broken  error // set once the stream ended or a request was abandoned

	stderr tail
	// done is closed when the stream has ended; ended holds why.
	done  chan struct{}
	ended error
}

// newConn starts reading the stream. onEnd is called once, after the
// stream ends, to explain why (it may inspect the container); its error is
// what later requests return.
func newConn(hj client.HijackedResponse, onEnd func(streamErr error, stderr string) error) *conn {
	c := &conn{hj: hj, pending: map[uint64]chan wire.Response{}, done: make(chan struct{})}
	pr, pw := io.Pipe()
	go func() {
		_, err := stdcopy.StdCopy(pw, &c.stderr, hj.Reader)
		pw.CloseWithError(err)
	}()
	go func() {
		r := bufio.NewReaderSize(pr, 64<<10)
		var streamErr error
		for {
			line, err := r.ReadBytes('\n')
			if len(line) > 0 {
				var resp wire.Response
				if jerr := json.Unmarshal(line, &resp); jerr != nil {
					streamErr = fmt.Errorf("bad response line: %w", jerr)
					break
				}
				c.deliver(resp)
			}
			if err != nil {
				if !errors.Is(err, io.EOF) {
					streamErr = err
				}
				break
			}
		}
		pr.Close()
		c.ended = onEnd(streamErr, c.stderr.String())
		c.mu.Lock()
		if c.broken == nil {
			c.broken = c.ended
		}
		c.mu.Unlock()
		close(c.done)
	}()
	return c
}

func (c *conn) deliver(resp wire.Response) {
	c.mu.Lock()
	ch, ok := c.pending[resp.ID]
	delete(c.pending, resp.ID)
	c.mu.Unlock()
	if ok {
		ch <- resp
	}
}

// send writes a request and returns the channel its response arrives on.
func (c *conn) send(req wire.Request) (uint64, <-chan wire.Response, error) {
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
	_, err = c.hj.Conn.Write(append(line, '\n'))
	c.wmu.Unlock()
	if err != nil {
		c.forget(req.ID)
		return 0, nil, fmt.Errorf("write request: %w", err)
	}
	return req.ID, ch, nil
}

func (c *conn) forget(id uint64) {
	c.mu.Lock()
	delete(c.pending, id)
	c.mu.Unlock()
}

// abandon marks the connection unusable (a request timed out: later
// responses could no longer be trusted to match).
func (c *conn) abandon(id uint64, err error) {
	c.mu.Lock()
	delete(c.pending, id)
	if c.broken == nil {
		c.broken = err
	}
	c.mu.Unlock()
}

// close ends the stream; the toolbox sees EOF on stdin and exits.
func (c *conn) close() {
	c.hj.Close()
}

// tail keeps the last few KiB written to it (the toolbox's stderr).
type tail struct {
	mu  sync.Mutex
	buf []byte
}

const tailMax = 4 << 10

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if len(t.buf) > tailMax {
		t.buf = append([]byte(nil), t.buf[len(t.buf)-tailMax:]...)
	}
	return len(p), nil
}

func (t *tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return strings.TrimSpace(string(t.buf))
}
