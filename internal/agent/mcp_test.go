package agent

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/killchain/killchain/internal/errkind"
	"github.com/killchain/killchain/internal/tools"
	"github.com/killchain/killchain/internal/tracker"
	"github.com/killchain/killchain/internal/vocab"
	"github.com/killchain/killchain/sandbox"
)

// dialer opens each server's stream with serve, which runs the server's
// end of an in-process pipe.
type dialer func(server string, conn net.Conn)

func (d dialer) MCP(ctx context.Context, server, agent string) (io.ReadWriteCloser, error) {
	client, srv := net.Pipe()
	go d(server, srv)
	return client, nil
}

var objSchema = json.RawMessage(`{"type":"object","properties":{"q":{"type":"string"}}}`)

// sdkServer serves srv over conn until the session ends.
func sdkServer(srv *mcp.Server) func(string, net.Conn) {
	return func(_ string, conn net.Conn) {
		ss, err := srv.Connect(context.Background(), &mcp.IOTransport{Reader: conn, Writer: conn}, nil)
		if err != nil {
			conn.Close()
			return
		}
		ss.Wait()
		conn.Close()
	}
}

func mcpConfig(m Model, d MCPDialer) Config {
	return Config{
		Agent: "analyst", Model: m, Level: tools.Admin, Servers: []sandbox.MCPServer{{Name: "ext"}}, MCP: d,
		Tracker: tracker.New("s", "r", tok, vocab.Single), Transcript: &Transcript{},
	}
}

func mcpCall(id, name, args string) Reply {
	return Reply{ToolCalls: []ToolCall{{ID: id, Name: name, Arguments: args}}}
}

// A malformed MCP exchange is a clear error or a tool error the model
// reads, never an outcome.
func TestMCPMalformed(t *testing.T) {
	t.Run("server_dies_mid_call", func(t *testing.T) {
		srv := mcp.NewServer(&mcp.Implementation{Name: "ext"}, nil)
		var conn net.Conn
		srv.AddTool(&mcp.Tool{Name: "lookup", InputSchema: objSchema}, func(ctx context.Context, _ *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			conn.Close() // the server process dies before it answers
			<-ctx.Done()
			return nil, ctx.Err()
		})
		d := dialer(func(s string, c net.Conn) { conn = c; sdkServer(srv)(s, c) })
		cfg := mcpConfig(&seq{replies: []Reply{mcpCall("1", "lookup", `{"q":"x"}`)}}, d)
		_, err := Run(t.Context(), cfg)
		var re *RunError
		if !errors.As(err, &re) || re.Kind != errkind.Sandbox || !strings.Contains(err.Error(), "mcp server ext") {
			t.Fatalf("err = %v, want a sandbox error naming the server", err)
		}
		if s := cfg.Tracker.Summary(); s.Stage != vocab.None {
			t.Errorf("stage %s after a dead server", s.Stage)
		}
	})
	t.Run("server_hangs", func(t *testing.T) {
		srv := mcp.NewServer(&mcp.Implementation{Name: "ext"}, nil)
		srv.AddTool(&mcp.Tool{Name: "lookup", InputSchema: objSchema}, func(ctx context.Context, _ *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			<-ctx.Done() // answers nothing until the client gives up
			return nil, ctx.Err()
		})
		cfg := mcpConfig(&seq{replies: []Reply{mcpCall("1", "lookup", `{}`)}}, dialer(sdkServer(srv)))
		cfg.MCPTimeout = 200 * time.Millisecond
		_, err := Run(t.Context(), cfg)
		var re *RunError
		if !errors.As(err, &re) || re.Kind != errkind.Sandbox || sandbox.FaultOf(err) != sandbox.FaultTimeout {
			t.Fatalf("err = %v, want a sandbox timeout", err)
		}
	})
	t.Run("invalid_schema", func(t *testing.T) {
		d := dialer(func(_ string, c net.Conn) {
			handRolled(c, `{"tools":[{"name":"lookup","description":"x","inputSchema":{"type":"string"}}]}`)
		})
		_, err := Run(t.Context(), mcpConfig(&seq{}, d))
		var re *RunError
		if !errors.As(err, &re) || re.Kind != errkind.Sandbox || !strings.Contains(err.Error(), "invalid input schema") {
			t.Fatalf("err = %v, want a sandbox error about the schema", err)
		}
	})
	t.Run("tool_vanishes", func(t *testing.T) {
		srv := mcp.NewServer(&mcp.Implementation{Name: "ext"}, nil)
		announced := make(chan struct{}, 1)
		srv.AddSendingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
			return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
				res, err := next(ctx, method, req)
				if method == listChanged {
					select {
					case announced <- struct{}{}:
					default:
					}
				}
				return res, err
			}
		})
		srv.AddTool(&mcp.Tool{Name: "keep", InputSchema: objSchema}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "kept"}}}, nil
		})
		srv.AddTool(&mcp.Tool{Name: "lookup", InputSchema: objSchema}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			for len(announced) > 0 {
				<-announced
			}
			srv.RemoveTools("lookup")
			<-announced
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "found"}}}, nil
		})
		cfg := mcpConfig(&seq{replies: []Reply{mcpCall("1", "lookup", `{}`), mcpCall("2", "lookup", `{}`)}}, dialer(sdkServer(srv)))
		res, err := Run(t.Context(), cfg)
		if err != nil {
			t.Fatal(err)
		}
		var results []Entry
		for _, e := range cfg.Transcript.All() {
			if e.Kind == KindToolResult {
				results = append(results, e)
			}
		}
		if res.ToolCalls != 2 || len(results) != 2 || results[0].IsError || !results[1].IsError || !strings.Contains(results[1].Text, "unknown tool") {
			t.Fatalf("tool calls %d, results %+v: want the second call of the vanished tool to be a tool error", res.ToolCalls, results)
		}
	})
}

// handRolled answers an MCP client by hand: initialize, then every
// tools/list with tools (a JSON result), until the stream ends.
func handRolled(c net.Conn, tools string) {
	defer c.Close()
	r := bufio.NewReader(c)
	for {
		line, err := r.ReadBytes('\n')
		if err != nil {
			return
		}
		var msg struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		if json.Unmarshal(line, &msg) != nil || len(msg.ID) == 0 {
			continue
		}
		result := `{}`
		switch msg.Method {
		case "initialize":
			result = `{"protocolVersion":"2025-06-18","capabilities":{"tools":{"listChanged":true}},"serverInfo":{"name":"ext","version":"1"}}`
		case "tools/list":
			result = tools
		}
		if _, err := c.Write([]byte(`{"jsonrpc":"2.0","id":` + string(msg.ID) + `,"result":` + result + "}\n")); err != nil {
			return
		}
	}
}

// FuzzCheckSchema reads any listed input schema: an accepted one is a JSON
// object schema of type "object", whose properties are objects.
func FuzzCheckSchema(f *testing.F) {
	for _, s := range []string{`{"type":"object"}`, `{"type":"string"}`, `{"type":"object","properties":{"a":1}}`, `[]`, `null`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var v any
		if json.Unmarshal(data, &v) != nil {
			return
		}
		out, err := checkSchema(v)
		if err != nil {
			return
		}
		var back struct {
			Type       string                     `json:"type"`
			Properties map[string]json.RawMessage `json:"properties"`
		}
		if json.Unmarshal(out, &back) != nil || back.Type != "object" {
			t.Fatalf("accepted %s", out)
		}
	})
}

// The MCP exchange is in the debug log: the session's initialize (the
// protocol the SDKs agreed on), each listing and each call.
func TestMCPLog(t *testing.T) {
	srv := mcp.NewServer(&mcp.Implementation{Name: "ext", Version: "7"}, nil)
	srv.AddTool(&mcp.Tool{Name: "lookup", InputSchema: objSchema}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "found"}}}, nil
	})
	var buf bytes.Buffer
	cfg := mcpConfig(&seq{replies: []Reply{mcpCall("1", "lookup", `{"q":"x"}`)}}, dialer(sdkServer(srv)))
	cfg.MCPLog = hclog.New(&hclog.LoggerOptions{Output: &buf, Level: hclog.Trace})
	if _, err := Run(t.Context(), cfg); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		`mcp session initialized: server=ext trusted=false protocol=2025-`,
		`server_info="ext 7"`,
		`mcp tools/list: server=ext step=0 tools=1 after_list_changed=false`,
		`mcp tools/call: server=ext tool=lookup is_error=false`,
	} {
		if !strings.Contains(buf.String(), want) {
			t.Errorf("log lacks %q:\n%s", want, buf.String())
		}
	}
}
