package stream

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/killchain/killchain/sandbox/wire"
)

// MCP opens agent's stdio stream to the sandbox's MCP server named server
// (the agent loop's MCPDialer). Its messages travel on the sandbox's own stream:
// each one the client writes is an OpMCP request, each one the server
// writes a frame response; a stream that ends ends every MCP stream with
// the same error.
func (c *Client) MCP(ctx context.Context, server, agent string) (io.ReadWriteCloser, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	q := newFrames()
	if err := c.Conn.register(server, agent, q); err != nil {
		return nil, fmt.Errorf("sandbox %s: mcp %s: %w", c.Run, server, err)
	}
	return &mcpStream{c: c, server: server, agent: agent, q: q}, nil
}

// register routes the frames of one MCP session to q.
func (c *Conn) register(server, agent string, q *frames) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.broken != nil {
		return c.broken
	}
	if c.sessions == nil {
		c.sessions = map[string]*frames{}
	}
	key := server + "\x00" + agent
	if _, ok := c.sessions[key]; ok {
		return errors.New("session already open")
	}
	c.sessions[key] = q
	return nil
}

func (c *Conn) unregister(server, agent string) {
	c.mu.Lock()
	delete(c.sessions, server+"\x00"+agent)
	c.mu.Unlock()
}

// deliverFrame hands a frame response to its session. A frame of no open
// session is dropped: the host closed it, and the server may still talk.
func (c *Conn) deliverFrame(resp wire.Response) {
	c.mu.Lock()
	q := c.sessions[resp.Server+"\x00"+resp.Agent]
	c.mu.Unlock()
	if q == nil {
		return
	}
	if len(resp.Frame) == 0 {
		msg := resp.Error
		if msg == "" {
			msg = "the server ended the session"
		}
		q.close(fmt.Errorf("mcp server %s: %s", resp.Server, msg))
		return
	}
	q.push(resp.Frame)
}

// endSessions ends every MCP stream with the stream's end.
func (c *Conn) endSessions(err error) {
	c.mu.Lock()
	qs := c.sessions
	c.sessions = nil
	c.mu.Unlock()
	for _, q := range qs {
		q.close(err)
	}
}

// mcpStream is one MCP session's stdio stream on the host.
type mcpStream struct {
	c             *Client
	server, agent string
	q             *frames

	wmu     sync.Mutex
	partial []byte
	once    sync.Once
}

// Read reads the server's messages, one line each.
func (m *mcpStream) Read(p []byte) (int, error) { return m.q.read(p) }

// Write sends each complete line as one OpMCP request.
func (m *mcpStream) Write(p []byte) (int, error) {
	m.wmu.Lock()
	defer m.wmu.Unlock()
	m.partial = append(m.partial, p...)
	for {
		i := bytes.IndexByte(m.partial, '\n')
		if i < 0 {
			return len(p), nil
		}
		line := bytes.TrimSpace(m.partial[:i])
		m.partial = m.partial[i+1:]
		if len(line) == 0 {
			continue
		}
		if !json.Valid(line) {
			return 0, fmt.Errorf("mcp %s: a message that is not JSON", m.server)
		}
		if err := m.send(append(json.RawMessage(nil), line...)); err != nil {
			return 0, err
		}
	}
}

func (m *mcpStream) send(frame json.RawMessage) error {
	var ok bool
	return m.c.Request(context.Background(), wire.Request{Op: wire.OpMCP, Agent: m.agent, Server: m.server, Frame: frame}, &ok)
}

// Close ends the session: the toolbox is told, and reads end.
func (m *mcpStream) Close() error {
	m.once.Do(func() {
		m.c.Conn.unregister(m.server, m.agent)
		m.q.close(io.EOF)
		_ = m.send(nil)
	})
	return nil
}

// frames is an unbounded queue of one session's incoming lines: the
// stream's reader never waits on an MCP client.
type frames struct {
	mu   sync.Mutex
	cond *sync.Cond
	buf  []byte
	err  error
}

func newFrames() *frames {
	f := &frames{}
	f.cond = sync.NewCond(&f.mu)
	return f
}

func (f *frames) push(frame json.RawMessage) {
	f.mu.Lock()
	if f.err == nil {
		f.buf = append(append(f.buf, frame...), '\n')
	}
	f.mu.Unlock()
	f.cond.Broadcast()
}

func (f *frames) close(err error) {
	if err == nil {
		err = ErrClosed
	}
	f.mu.Lock()
	if f.err == nil {
		f.err = err
	}
	f.mu.Unlock()
	f.cond.Broadcast()
}

func (f *frames) read(p []byte) (int, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for len(f.buf) == 0 && f.err == nil {
		f.cond.Wait()
	}
	if len(f.buf) > 0 {
		n := copy(p, f.buf)
		f.buf = f.buf[n:]
		return n, nil
	}
	return 0, f.err
}
