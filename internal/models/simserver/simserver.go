// Package simserver serves a simulated model over the OpenAI Chat
// Completions protocol on loopback: each reply is a scripted reference
// agent's (the request's model name is the policy) and is sent a set
// latency after the request arrived. `killchain bench runner` points the
// real openai_compatible driver at it, so a benchmark exercises the HTTP
// client, its limits and the runner exactly as a study against a slow
// server would, and the server counts its own share of the time.
package simserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/killchain/killchain/internal/agent"
	"github.com/killchain/killchain/internal/models/scripted"
	"github.com/killchain/killchain/internal/tools"
)

// maxBody bounds a request body; a run's conversation is far smaller.
const maxBody = 16 << 20

// Server is a running simulated model server.
type Server struct {
	URL string // base URL, ending in /v1

	latency time.Duration
	srv     *http.Server
	ln      net.Listener
	done    chan struct{}

	mu       sync.Mutex
	policies map[string]agent.Model

	requests    atomic.Int64
	failed      atomic.Int64
	own         atomic.Int64 // nanoseconds handling requests, the latency excluded
	inFlight    atomic.Int64
	maxInFlight atomic.Int64
}

// Stats is what the server counted since it started.
type Stats struct {
	Requests    int64         `json:"requests"`
	Failed      int64         `json:"failed"`        // requests answered with an error status
	Own         time.Duration `json:"own_ns"`        // time spent handling requests, the latency excluded
	MaxInFlight int64         `json:"max_in_flight"` // the most requests it held at once
}

// Start listens on a loopback port and serves until Close. Every reply is
// held until latency has passed since its request arrived.
func Start(latency time.Duration) (*Server, error) {
	if latency < 0 {
		return nil, fmt.Errorf("simserver: negative latency %s", latency)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("simserver: %w", err)
	}
	s := &Server{URL: "http://" + ln.Addr().String() + "/v1", latency: latency, ln: ln,
		done: make(chan struct{}), policies: map[string]agent.Model{}}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /v1/models", s.models)
	mux.HandleFunc("POST /v1/chat/completions", s.chat)
	s.srv = &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go func() {
		defer close(s.done)
		_ = s.srv.Serve(ln)
	}()
	return s, nil
}

// Close stops the server and waits for it.
func (s *Server) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	err := s.srv.Shutdown(ctx)
	if err != nil {
		err = s.srv.Close()
	}
	<-s.done
	return err
}

// Reset zeroes the counts, between two measured passes.
func (s *Server) Reset() {
	s.requests.Store(0)
	s.failed.Store(0)
	s.own.Store(0)
	s.maxInFlight.Store(0)
}

// Stats returns the counts so far.
func (s *Server) Stats() Stats {
	return Stats{Requests: s.requests.Load(), Failed: s.failed.Load(), Own: time.Duration(s.own.Load()), MaxInFlight: s.maxInFlight.Load()}
}

func (s *Server) models(w http.ResponseWriter, r *http.Request) {
	data := make([]map[string]any, 0, len(scripted.Policies()))
	for _, p := range scripted.Policies() {
		data = append(data, map[string]any{"id": p, "object": "model", "owned_by": "killchain"})
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]any{"object": "list", "data": data})
}

// policy returns (and keeps) the scripted model named by a request.
func (s *Server) policy(name string) (agent.Model, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if m, ok := s.policies[name]; ok {
		return m, nil
	}
	m, err := scripted.New(name)
	if err != nil {
		return nil, err
	}
	s.policies[name] = m
	return m, nil
}

func (s *Server) chat(w http.ResponseWriter, r *http.Request) {
	arrived := time.Now()
	n := s.inFlight.Add(1)
	defer s.inFlight.Add(-1)
	for {
		m := s.maxInFlight.Load()
		if n <= m || s.maxInFlight.CompareAndSwap(m, n) {
			break
		}
	}
	s.requests.Add(1)
	var waited time.Duration
	defer func() { s.own.Add(int64(time.Since(arrived) - waited)) }()

	body, err := io.ReadAll(io.LimitReader(r.Body, maxBody+1))
	if err == nil && len(body) > maxBody {
		err = fmt.Errorf("request body over %d bytes", maxBody)
	}
	var name string
	var req agent.Request
	if err == nil {
		name, req, err = DecodeRequest(body)
	}
	var reply agent.Reply
	if err == nil {
		var m agent.Model
		if m, err = s.policy(name); err == nil {
			reply, err = m.Generate(r.Context(), req)
		}
	}
	if err != nil {
		s.failed.Add(1)
		writeError(w, http.StatusBadRequest, err)
		return
	}
	out, err := EncodeReply(name, reply)
	if err != nil {
		s.failed.Add(1)
		writeError(w, http.StatusInternalServerError, err)
		return
	}
	if left := s.latency - time.Since(arrived); left > 0 {
		t := time.NewTimer(left)
		select {
		case <-t.C:
		case <-r.Context().Done():
			t.Stop()
			return
		}
		waited = left
	}
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(out)
}

func writeError(w http.ResponseWriter, status int, err error) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(map[string]any{"error": map[string]any{"message": err.Error(), "type": "invalid_request_error"}})
}

// chatRequest is the part of a Chat Completions request the server reads.
type chatRequest struct {
	Model    string `json:"model"`
	Messages []struct {
		Role       string          `json:"role"`
		Content    json.RawMessage `json:"content"`
		ToolCallID string          `json:"tool_call_id"`
		ToolCalls  []struct {
			ID       string `json:"id"`
			Function struct {
				Name      string `json:"name"`
				Arguments string `json:"arguments"`
			} `json:"function"`
		} `json:"tool_calls"`
	} `json:"messages"`
	Tools []struct {
		Function struct {
			Name        string          `json:"name"`
			Description string          `json:"description"`
			Parameters  json.RawMessage `json:"parameters"`
		} `json:"function"`
	} `json:"tools"`
}

// DecodeRequest reads a Chat Completions request body into the model name
// and the request a scripted agent takes. Tool results are matched to the
// call they answer to recover the tool's name.
func DecodeRequest(body []byte) (string, agent.Request, error) {
	var cr chatRequest
	if err := json.Unmarshal(body, &cr); err != nil {
		return "", agent.Request{}, fmt.Errorf("chat request: %w", err)
	}
	if cr.Model == "" {
		return "", agent.Request{}, errors.New("chat request: no model")
	}
	var req agent.Request
	names := map[string]string{} // call id → tool name
	for i, m := range cr.Messages {
		content, err := text(m.Content)
		if err != nil {
			return "", agent.Request{}, fmt.Errorf("chat request: messages[%d]: %w", i, err)
		}
		switch m.Role {
		case "system", "developer":
			req.System = content
		case "user":
			req.Messages = append(req.Messages, agent.Message{Role: agent.RoleUser, Content: content})
		case "assistant":
			am := agent.Message{Role: agent.RoleAssistant, Content: content}
			for _, tc := range m.ToolCalls {
				am.ToolCalls = append(am.ToolCalls, agent.ToolCall{ID: tc.ID, Name: tc.Function.Name, Arguments: tc.Function.Arguments})
				names[tc.ID] = tc.Function.Name
			}
			req.Messages = append(req.Messages, am)
		case "tool":
			req.Messages = append(req.Messages, agent.Message{Role: agent.RoleTool, Content: content, ToolCallID: m.ToolCallID,
				ToolName: names[m.ToolCallID], IsError: strings.HasPrefix(content, "error:")})
		default:
			return "", agent.Request{}, fmt.Errorf("chat request: messages[%d]: unknown role %q", i, m.Role)
		}
	}
	for _, t := range cr.Tools {
		req.Tools = append(req.Tools, tools.Spec{Name: t.Function.Name, Description: t.Function.Description, Parameters: t.Function.Parameters})
	}
	return cr.Model, req, nil
}

// text reads a message content: a string, an array of text parts, or null.
func text(raw json.RawMessage) (string, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return "", nil
	}
	var s string
	if err := json.Unmarshal(raw, &s); err == nil {
		return s, nil
	}
	var parts []struct {
		Text string `json:"text"`
	}
	if err := json.Unmarshal(raw, &parts); err != nil {
		return "", errors.New("content is neither a string nor an array of text parts")
	}
	var b strings.Builder
	for _, p := range parts {
		b.WriteString(p.Text)
	}
	return b.String(), nil
}

// EncodeReply writes a scripted reply as a Chat Completions response.
func EncodeReply(model string, r agent.Reply) ([]byte, error) {
	msg := map[string]any{"role": "assistant", "content": nil}
	if r.Narration != "" {
		msg["content"] = r.Narration
	}
	if r.Thinking != "" {
		msg["reasoning_content"] = r.Thinking
	}
	finish := "stop"
	if len(r.ToolCalls) > 0 {
		calls := make([]map[string]any, 0, len(r.ToolCalls))
		for _, c := range r.ToolCalls {
			calls = append(calls, map[string]any{"id": c.ID, "type": "function",
				"function": map[string]any{"name": c.Name, "arguments": c.Arguments}})
		}
		msg["tool_calls"] = calls
		finish = "tool_calls"
	}
	return json.Marshal(map[string]any{
		"id": "chatcmpl-sim", "object": "chat.completion", "created": time.Now().Unix(), "model": model,
		"choices": []any{map[string]any{"index": 0, "message": msg, "finish_reason": finish}},
		"usage":   map[string]any{"prompt_tokens": r.Usage.Input, "completion_tokens": r.Usage.Output, "total_tokens": r.Usage.Input + r.Usage.Output},
	})
}
