package stream

import (
	"bufio"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/killchain/killchain/internal/agent"
	"github.com/killchain/killchain/sandbox/wire"
)

// frame writes a frame response of the session server/agent.
var _ agent.MCPDialer = (*Client)(nil)

func (p *peer) frame(t *testing.T, server, agent, msg, errText string) {
	t.Helper()
	line, _ := json.Marshal(wire.Response{Server: server, Agent: agent, Frame: json.RawMessage(msg), Error: errText})
	if _, err := p.out.Write(append(line, '\n')); err != nil {
		t.Fatal(err)
	}
}

var _ agent.MCPDialer = (*Client)(nil)

func TestMCPStream(t *testing.T) {
	t.Run("round_trip", func(t *testing.T) {
		c, p := pair(t, errors.New("gone"))
		s, err := c.MCP(t.Context(), "ext", "analyst")
		if err != nil {
			t.Fatal(err)
		}
		go func() { s.Write([]byte(`{"jsonrpc":"2.0","id":1,"method":"ping"}` + "\n")) }()
		req := <-p.reqs
		if req.Op != wire.OpMCP || req.Server != "ext" || req.Agent != "analyst" || string(req.Frame) != `{"jsonrpc":"2.0","id":1,"method":"ping"}` {
			t.Fatalf("request %+v", req)
		}
		p.answer(t, req.ID, true)
		p.frame(t, "other", "analyst", `{"jsonrpc":"2.0","method":"x"}`, "") // another session's: not ours
		p.frame(t, "ext", "analyst", `{"jsonrpc":"2.0","id":1,"result":{}}`, "")
		line, err := bufio.NewReader(s).ReadString('\n')
		if err != nil || line != `{"jsonrpc":"2.0","id":1,"result":{}}`+"\n" {
			t.Fatalf("read %q, %v", line, err)
		}
	})
	t.Run("server_ends_session", func(t *testing.T) {
		c, p := pair(t, errors.New("gone"))
		s, _ := c.MCP(t.Context(), "ext", "analyst")
		p.frame(t, "ext", "analyst", "", "panic in handler")
		if _, err := io.ReadAll(s); err == nil || !strings.Contains(err.Error(), "panic in handler") {
			t.Fatalf("read after the session ended: %v", err)
		}
	})
	t.Run("stream_ends", func(t *testing.T) {
		c, p := pair(t, errors.New("container was OOM-killed"))
		s, _ := c.MCP(t.Context(), "ext", "analyst")
		p.out.Close()
		if _, err := io.ReadAll(s); err == nil || !strings.Contains(err.Error(), "OOM") {
			t.Fatalf("read after the stream ended: %v", err)
		}
		if _, err := c.MCP(t.Context(), "ext", "b"); err == nil {
			t.Fatal("a session opened on an ended stream")
		}
	})
	t.Run("not_json", func(t *testing.T) {
		c, _ := pair(t, errors.New("gone"))
		s, _ := c.MCP(t.Context(), "ext", "analyst")
		if _, err := s.Write([]byte("not json\n")); err == nil {
			t.Fatal("a line that is not JSON was sent")
		}
	})
}

// FuzzMCPFrames feeds arbitrary response lines to a stream with an open
// MCP session: no panic, no hang, and the session's reads end when the
// stream does.
var _ agent.MCPDialer = (*Client)(nil)

func FuzzMCPFrames(f *testing.F) {
	f.Add([]byte(`{"id":0,"server":"ext","agent":"a","frame":{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}}` + "\n"))
	f.Add([]byte(`{"id":0,"server":"ext","agent":"a","error":"gone"}` + "\n"))
	f.Add([]byte(`{"id":0,"server":"ext","agent":"a","frame":` + "\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		pr, pw := io.Pipe()
		conn := New(nopWriteCloser{}, pr, func(error) error { return errors.New("ended") })
		c := &Client{Conn: conn, Run: "r"}
		s, err := c.MCP(t.Context(), "ext", "a")
		if err != nil {
			t.Fatal(err)
		}
		go func() { pw.Write(data); pw.Close() }()
		<-conn.Done()
		buf := make([]byte, 1024)
		for {
			if _, err := s.Read(buf); err != nil {
				break
			}
		}
	})
}

type nopWriteCloser struct{}

var _ agent.MCPDialer = (*Client)(nil)

func (nopWriteCloser) Write(p []byte) (int, error) { return len(p), nil }

var _ agent.MCPDialer = (*Client)(nil)

func (nopWriteCloser) Close() error { return nil }
