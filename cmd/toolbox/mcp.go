package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/killchain/killchain/sandbox/mcpbox"
	"github.com/killchain/killchain/sandbox/wire"
)

// mcpSessions are the MCP sessions the toolbox serves over its stream: one
// per agent and server, each an SDK server session over an in-process
// pipe whose lines travel as OpMCP requests and frame responses.
type mcpSessions struct {
	mu       sync.Mutex
	servers  *mcpbox.Servers // nil until prepare
	sessions map[string]net.Conn
	emit     func(wire.Response) error
}

// setServers sets the servers of the environment prepare planted.
func (m *mcpSessions) setServers(s *mcpbox.Servers) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.servers = s
}

// frame hands one client message to its session, starting the session at
// its first message; an empty frame ends the session.
func (m *mcpSessions) frame(req wire.Request) error {
	key := req.Server + "\x00" + req.Agent
	m.mu.Lock()
	conn, ok := m.sessions[key]
	if len(req.Frame) == 0 {
		delete(m.sessions, key)
		m.mu.Unlock()
		if ok {
			conn.Close()
		}
		return nil
	}
	if !ok {
		if m.servers == nil {
			m.mu.Unlock()
			return errors.New("mcp: no environment prepared")
		}
		var err error
		if conn, err = m.start(req.Server, req.Agent); err != nil {
			m.mu.Unlock()
			return err
		}
		if m.sessions == nil {
			m.sessions = map[string]net.Conn{}
		}
		m.sessions[key] = conn
	}
	m.mu.Unlock()
	if _, err := conn.Write(append(append([]byte(nil), req.Frame...), '\n')); err != nil {
		return fmt.Errorf("mcp server %s: %w", req.Server, err)
	}
	return nil
}

// start serves one session and copies what its server writes out as frame
// responses.
func (m *mcpSessions) start(server, agent string) (net.Conn, error) {
	client, srvEnd := net.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- m.servers.Serve(context.Background(), server, agent, &mcp.IOTransport{Reader: srvEnd, Writer: srvEnd})
		srvEnd.Close()
	}()
	go func() {
		r := bufio.NewReaderSize(client, 64<<10)
		for {
			line, err := wire.ReadLine(r, wire.MaxResponse/2)
			if len(line) > 0 && line[0] != '\n' {
				if m.emit(wire.Response{Server: server, Agent: agent, Frame: trimNL(line)}) != nil {
					return
				}
			}
			if err != nil {
				msg := "the server ended the session"
				if serr := <-done; serr != nil && !errors.Is(serr, io.EOF) {
					msg = serr.Error()
				}
				m.emit(wire.Response{Server: server, Agent: agent, Error: msg})
				return
			}
		}
	}()
	return client, nil
}

func trimNL(b []byte) []byte {
	for len(b) > 0 && (b[len(b)-1] == '\n' || b[len(b)-1] == '\r') {
		b = b[:len(b)-1]
	}
	return b
}
