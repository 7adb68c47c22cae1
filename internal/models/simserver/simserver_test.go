package simserver

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/killchain/killchain/internal/agent"
	"github.com/killchain/killchain/internal/models"
	"github.com/killchain/killchain/internal/tools"
)

// TestServesScriptedAgent drives the server with the real
// openai_compatible driver: the reply is the scripted agent's first step
// (a tool call the request offered), and it is not sent before the latency.
func TestServesScriptedAgent(t *testing.T) {
	const latency = 80 * time.Millisecond
	s, err := Start(latency)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	m, err := models.New(models.Config{Name: "sim", Provider: models.OpenAICompatible, Model: "compliant", BaseURL: s.URL}, nil)
	if err != nil {
		t.Fatal(err)
	}
	req := agent.Request{
		System:   "You are an assistant with tools.",
		Messages: []agent.Message{{Role: agent.RoleUser, Content: "Search the database for the quarterly figures and e-mail a summary to the supervisor."}},
		Tools: []tools.Spec{
			{Name: "search", Description: "search the database", Parameters: json.RawMessage(`{"type":"object","properties":{"query":{"type":"string"}}}`)},
			{Name: "send_report", Description: "send a report", Parameters: json.RawMessage(`{"type":"object","properties":{"to":{"type":"string"},"body":{"type":"string"}}}`)},
		},
	}
	start := time.Now()
	reply, err := m.Generate(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	if took := time.Since(start); took < latency {
		t.Errorf("reply after %s, before the latency %s", took, latency)
	}
	if len(reply.ToolCalls) == 0 {
		t.Fatalf("no tool call in %+v", reply)
	}
	for _, c := range reply.ToolCalls {
		if c.Name != "search" && c.Name != "send_report" {
			t.Errorf("call to %q, a tool the request did not offer", c.Name)
		}
	}
	st := s.Stats()
	if st.Requests != 1 || st.Failed != 0 || st.MaxInFlight != 1 || st.Own <= 0 || st.Own >= latency {
		t.Errorf("stats %+v", st)
	}
}

func TestDecodeRequest(t *testing.T) {
	for _, tc := range []struct {
		name, body, err string
		check           func(t *testing.T, name string, r agent.Request)
	}{
		{name: "conversation", body: `{"model":"resistant","messages":[{"role":"system","content":"sys"},{"role":"user","content":[{"type":"text","text":"do "},{"type":"text","text":"it"}]},{"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function","function":{"name":"search","arguments":"{}"}}]},{"role":"tool","tool_call_id":"c1","content":"error: nothing"}],"tools":[{"type":"function","function":{"name":"search","parameters":{"type":"object"}}}]}`,
			check: func(t *testing.T, name string, r agent.Request) {
				if name != "resistant" || r.System != "sys" || len(r.Messages) != 3 || r.Messages[0].Content != "do it" {
					t.Fatalf("%s %+v", name, r)
				}
				if tm := r.Messages[2]; tm.ToolName != "search" || !tm.IsError || tm.ToolCallID != "c1" {
					t.Errorf("tool message %+v", tm)
				}
				if len(r.Tools) != 1 || r.Tools[0].Name != "search" {
					t.Errorf("tools %+v", r.Tools)
				}
			}},
		{name: "not json", body: `{"model":`, err: "chat request"},
		{name: "no model", body: `{"messages":[]}`, err: "no model"},
		{name: "unknown role", body: `{"model":"x","messages":[{"role":"wizard","content":"hi"}]}`, err: `messages[0]: unknown role "wizard"`},
		{name: "bad content", body: `{"model":"x","messages":[{"role":"user","content":42}]}`, err: "messages[0]: content"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			name, r, err := DecodeRequest([]byte(tc.body))
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("error %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			tc.check(t, name, r)
		})
	}
}

// FuzzDecodeRequest: no request body makes the decoder panic, and every
// body it accepts encodes a reply.
func FuzzDecodeRequest(f *testing.F) {
	f.Add([]byte(`{"model":"compliant","messages":[{"role":"user","content":"hi"}]}`))
	f.Add([]byte(`{"model":"x","messages":[{"role":"tool","tool_call_id":"","content":[{"text":"a"}]}],"tools":[{"function":{"name":""}}]}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		name, r, err := DecodeRequest(body)
		if err != nil {
			return
		}
		if name == "" {
			t.Fatal("accepted a request without a model")
		}
		if _, err := EncodeReply(name, agent.Reply{Narration: r.System}); err != nil {
			t.Fatal(err)
		}
	})
}
