package sandboxtest

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/killchain/killchain/internal/agent"
	"github.com/killchain/killchain/internal/tools"
	"github.com/killchain/killchain/sandbox"
)

// MCPEnv is the environment of the MCP checks: a records database, a
// page, seeded memory and two task tools, every tool served by one of two
// MCP servers (a trusted one and a third party's).
func MCPEnv(run string) sandbox.Env {
	return sandbox.Env{
		Run: run, Task: "mcp_test",
		Files: map[string][]byte{
			sandbox.DBFile: []byte(`[{"id":"R-1","title":"Budget","body":"approved"}]`),
			"web/" + sandbox.PageFile("https://example.org/doc"): []byte("a page"),
		},
		Memory: []sandbox.Record{sandbox.TextRecord("note", "seeded", "")},
		Tools: []sandbox.ToolDef{
			{Name: "lookup_rate", Description: "Look up a rate.", Level: "read", Untrusted: true,
				Parameters: json.RawMessage(`{"type":"object","properties":{"pair":{"type":"string"}},"required":["pair"]}`),
				Results:    []sandbox.ToolResult{{When: map[string]string{"pair": "EURUSD"}, Text: "1.08"}}},
			{Name: "pay", Description: "Pay an invoice.", Level: "execute", Outbound: true,
				Parameters: json.RawMessage(`{"type":"object","properties":{"invoice":{"type":"string"},"amount":{"type":"number"}},"required":["invoice"]}`)},
		},
		MCP: []sandbox.MCPServer{
			{Name: "company", Trusted: true, Tools: []string{tools.Search, tools.GetWebpage, tools.ReadMemory, tools.ListMemory,
				tools.WriteMemory, tools.Delegate, tools.SendReport, tools.DeleteRecord, "pay"}},
			{Name: "rates", Tools: []string{"lookup_rate"}},
		},
	}
}

// mcpCalls are the calls both protocols must answer alike: reads, misses,
// effects, tool errors and task tools.
var mcpCalls = []struct{ name, tool, args string }{
	{"search", tools.Search, `{"query":"budget"}`},
	{"search_without_query", tools.Search, `{}`},
	{"page", tools.GetWebpage, `{"url":"https://example.org/doc"}`},
	{"page_missing", tools.GetWebpage, `{"url":"https://example.org/none"}`},
	{"write_string", tools.WriteMemory, `{"key":"k1","value":"text"}`},
	{"write_object", tools.WriteMemory, `{"key":"k2","value":{"a":[1,"b"]}}`},
	{"read", tools.ReadMemory, `{"key":"k2"}`},
	{"read_missing", tools.ReadMemory, `{"key":"nope"}`},
	{"list", tools.ListMemory, `{}`},
	{"delegate", tools.Delegate, `{"message":"hand over"}`},
	{"report", tools.SendReport, `{"to":"a@b.org","subject":"s","body":"b"}`},
	{"report_without_to", tools.SendReport, `{"subject":"s"}`},
	{"delete", tools.DeleteRecord, `{"record_id":"R-1","reason":"asked"}`},
	{"task_tool", "lookup_rate", `{"pair":"eurusd"}`},
	{"task_tool_miss", "lookup_rate", `{"pair":"GBPUSD"}`},
	{"task_tool_missing_arg", "lookup_rate", `{}`},
	{"outbound_task_tool", "pay", `{"invoice":"INV-1","amount":12.5}`},
	{"search_wrong_type", tools.Search, `{"query":5}`},
	{"search_extra_argument", tools.Search, `{"query":"budget","limit":3}`},
	{"task_tool_wrong_type", "lookup_rate", `{"pair":7}`},
	{"report_null_body", tools.SendReport, `{"to":"a@b.org","subject":"s","body":null}`},
}

// MCPSameCalls checks that a tool call means and fails the same over MCP
// as over the toolbox protocol: the same calls, in the same order, in two
// fresh sandboxes of one environment, one through Call and one through
// an SDK client on the sandbox's MCP servers, give the same results and
// effects and leave the same state.
func MCPSameCalls(t *testing.T, open func(t *testing.T, env sandbox.Env) sandbox.Sandbox) {
	env := MCPEnv("mcp-same")
	direct, viaMCP := open(t, env), open(t, env)
	dialer, ok := viaMCP.(agent.MCPDialer)
	if !ok {
		t.Fatalf("%T serves no MCP", viaMCP)
	}
	sessions := map[string]*mcp.ClientSession{}
	session := func(tool string) *mcp.ClientSession {
		server := ""
		for _, s := range env.MCP {
			for _, n := range s.Tools {
				if n == tool {
					server = s.Name
				}
			}
		}
		if cs := sessions[server]; cs != nil {
			return cs
		}
		rwc, err := dialer.MCP(t.Context(), server, "agent")
		if err != nil {
			t.Fatal(err)
		}
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "sandboxtest"}, nil).Connect(t.Context(), &mcp.IOTransport{Reader: rwc, Writer: rwc}, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { cs.Close() })
		sessions[server] = cs
		return cs
	}
	for _, c := range mcpCalls {
		t.Run(c.name, func(t *testing.T) {
			want, err := direct.Call(t.Context(), "agent", c.tool, json.RawMessage(c.args))
			if err != nil {
				t.Fatal(err)
			}
			res, err := session(c.tool).CallTool(t.Context(), &mcp.CallToolParams{Name: c.tool, Arguments: json.RawMessage(c.args)})
			if err != nil {
				t.Fatal(err)
			}
			got := mcpResult(t, res)
			if !reflect.DeepEqual(norm(got), norm(want)) {
				t.Errorf("over MCP %+v, over the toolbox protocol %+v", norm(got), norm(want))
			}
		})
	}
	a, err := direct.State(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	b, err := viaMCP.State(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if ja, jb := mustJSON(t, a), mustJSON(t, b); ja != jb {
		t.Errorf("final states differ:\n toolbox %s\n mcp     %s", ja, jb)
	}
}

// mcpResult reads a tools/call result back into a sandbox.Result.
func mcpResult(t *testing.T, res *mcp.CallToolResult) sandbox.Result {
	var text []string
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			text = append(text, tc.Text)
		}
	}
	out := sandbox.Result{Output: strings.Join(text, "\n")}
	if res.IsError {
		out.Output, out.Error = "", out.Output
	}
	if v, ok := res.Meta[sandbox.MCPMetaEffect]; ok {
		var eff sandbox.Effect
		if err := json.Unmarshal([]byte(mustJSON(t, v)), &eff); err != nil {
			t.Fatal(err)
		}
		out.Effect = &eff
	}
	return out
}

func norm(r sandbox.Result) string {
	data, _ := json.Marshal(r)
	return string(data)
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	data, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}
