package fake

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
)

// Kind names a provider wire format a Provider speaks.
type Kind string

// Kinds.
const (
	Ollama     Kind = "ollama"      // POST /api/chat, NDJSON stream; GET /api/tags
	OpenAIChat Kind = "openai_chat" // POST …/chat/completions
	Responses  Kind = "responses"   // POST …/responses
	Anthropic  Kind = "anthropic"   // POST /v1/messages
	DeepSeek   Kind = "deepseek"    // POST …/chat/completions with reasoning_content
	Compatible Kind = "compatible"  // POST …/chat/completions (vLLM dialect); GET …/models
)

// Fault is a failure the Provider answers with instead of a reply, to
// requests When matches (nil: every request), Times times (0: until
// cleared). Error bodies are the provider's error document with every
// credential header the request carried echoed into the message, as a
// careless proxy or server might.
type Fault struct {
	Name       string
	When       func(*Conversation) bool
	Times      int
	Status     int    // error status; 0 with Hang or Truncate
	RetryAfter string // Retry-After header value
	Hang       bool   // send nothing until the client gives up
	Truncate   bool   // send the real reply cut in half
	// Stop answers 200 with the model's turn ended early (cut by the token
	// limit, refused, filtered, paused), as the provider writes it; the
	// request must still keep the provider's rules.
	Stop Stop
}

// Exchange is one POST the Provider answered.
type Exchange struct {
	Conv   Conversation
	Turn   *Turn // nil when a fault or a rejection answered
	Status int
	Fault  string
	Reject string // why the request broke the provider's rules
	Usage  Usage  // what the reply reported
}

// Usage is what a reply reports, in the driver's terms: Cached are the
// input tokens read from the prompt cache (counted in Input too).
type Usage struct{ Input, Output, Reasoning, Cached int }

// Options configure a Provider.
type Options struct {
	// Behaviors chooses a behavior by the request's model name; others
	// get Default.
	Behaviors map[string]Behavior
	Default   Behavior
	// Models are the model names GET /api/tags and GET /models list.
	Models []string
}

// Provider is a fake model provider on 127.0.0.1 that answers like a
// model: it decodes each request in its provider's wire format, decides
// the next turn from the conversation (Behavior.Next) and encodes the
// answer in that format, with thinking where the provider has it. It
// enforces the provider's rules about replayed state (signed thinking,
// encrypted reasoning, reasoning_content never sent back) by answering
// 400, as the real APIs do.
type Provider struct {
	*httptest.Server
	Kind Kind
	opts Options

	mu     sync.Mutex
	faults []*Fault
	log    []Exchange
	echoed int
	issued map[string]string // ids of replayed items → the content they must carry
	stop   chan struct{}
}

// NewProvider starts a fake provider of kind k.
func NewProvider(t testing.TB, k Kind, opts Options) *Provider {
	t.Helper()
	p := &Provider{Kind: k, opts: opts, issued: map[string]string{}, stop: make(chan struct{})}
	p.Server = httptest.NewServer(http.HandlerFunc(p.serve))
	t.Cleanup(func() {
		close(p.stop)
		p.Close()
	})
	return p
}

// Fail adds faults; the first whose When matches answers a request.
func (p *Provider) Fail(fs ...Fault) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for i := range fs {
		f := fs[i]
		p.faults = append(p.faults, &f)
	}
}

// Heal removes every fault.
func (p *Provider) Heal() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.faults = nil
}

// Exchanges returns every POST answered so far.
func (p *Provider) Exchanges() []Exchange {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]Exchange(nil), p.log...)
}

// Echoed is how many error bodies carried a credential back.
func (p *Provider) Echoed() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.echoed
}

func (p *Provider) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	if r.Method == http.MethodGet {
		p.serveList(w, r)
		return
	}
	if !p.route(r.URL.Path) {
		http.Error(w, `{"error":"not found"}`, http.StatusNotFound)
		return
	}
	conv, err := p.decode(body)
	if err != nil {
		p.record(Exchange{Status: 400, Reject: err.Error()})
		p.writeError(w, r, 400, "", "could not parse the JSON body of your request: "+err.Error())
		return
	}
	f := p.fault(&conv)
	if f != nil && f.Stop == NoStop {
		p.record(Exchange{Conv: conv, Status: f.Status, Fault: f.Name})
		p.applyFault(w, r, f, conv)
		return
	}
	if reason := p.validate(body, &conv); reason != "" {
		p.record(Exchange{Conv: conv, Status: 400, Reject: reason})
		p.writeError(w, r, 400, "", reason)
		return
	}
	turn := p.behavior(&conv).Next(&conv)
	name := ""
	if f != nil {
		turn, name = turn.stopped(p.Kind, f.Stop, conv.Thinking), f.Name
	}
	out, usage := p.encode(&conv, turn)
	p.record(Exchange{Conv: conv, Turn: &turn, Status: 200, Fault: name, Usage: usage})
	p.write(w, out)
}

func (p *Provider) route(path string) bool {
	switch p.Kind {
	case Ollama:
		return path == "/api/chat"
	case Anthropic:
		return strings.HasSuffix(path, "/v1/messages")
	case Responses:
		return strings.HasSuffix(path, "/responses")
	}
	return strings.HasSuffix(path, "/chat/completions")
}

func (p *Provider) record(e Exchange) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.log = append(p.log, e)
}

// fault returns the fault answering this request and counts it used.
func (p *Provider) fault(c *Conversation) *Fault {
	p.mu.Lock()
	defer p.mu.Unlock()
	for i, f := range p.faults {
		if f.When != nil && !f.When(c) {
			continue
		}
		if f.Times > 0 {
			f.Times--
			if f.Times == 0 {
				p.faults = append(p.faults[:i:i], p.faults[i+1:]...)
			}
		}
		return f
	}
	return nil
}

func (p *Provider) applyFault(w http.ResponseWriter, r *http.Request, f *Fault, c Conversation) {
	switch {
	case f.Hang:
		select {
		case <-r.Context().Done():
		case <-p.stop:
		}
	case f.Truncate:
		out, _ := p.encode(&c, p.behavior(&c).Next(&c))
		out.body = out.body[:len(out.body)/2]
		p.write(w, out)
	default:
		if f.RetryAfter != "" {
			w.Header().Set("Retry-After", f.RetryAfter)
		}
		p.writeError(w, r, f.Status, f.Name, "")
	}
}

// reply is an encoded answer.
type reply struct {
	contentType string
	body        []byte
	stream      bool // write line by line, flushing
}

func (p *Provider) write(w http.ResponseWriter, out reply) {
	w.Header().Set("Content-Type", out.contentType)
	w.WriteHeader(http.StatusOK)
	if !out.stream {
		w.Write(out.body)
		return
	}
	f, _ := w.(http.Flusher)
	for _, line := range bytes.SplitAfter(out.body, []byte("\n")) {
		w.Write(line)
		if f != nil {
			f.Flush()
		}
	}
}

// writeError answers with the provider's error document. The message
// echoes every credential header the request carried.
func (p *Provider) writeError(w http.ResponseWriter, r *http.Request, status int, name, msg string) {
	if msg == "" {
		switch {
		case status == http.StatusTooManyRequests:
			msg = "Rate limit reached for requests. Please try again later."
		case status == http.StatusUnauthorized:
			msg = "The API key given is not valid."
		case status == http.StatusForbidden:
			msg = "This key has no access to the model."
		case status == http.StatusNotFound:
			msg = "No such model on this server."
		case status >= 500:
			msg = "The server had an error while processing your request."
		default:
			msg = "Invalid request."
		}
	}
	echo := ""
	for _, h := range []string{"Authorization", "X-Api-Key"} {
		if v := r.Header.Get(h); v != "" {
			echo += " (request carried " + h + ": " + v + ")"
		}
	}
	if echo != "" {
		p.mu.Lock()
		p.echoed++
		p.mu.Unlock()
	}
	msg += echo
	var doc any
	switch p.Kind {
	case Anthropic:
		typ := "invalid_request_error"
		switch {
		case status == http.StatusTooManyRequests:
			typ = "rate_limit_error"
		case status == 529:
			typ = "overloaded_error"
		case status >= 500:
			typ = "api_error"
		}
		doc = map[string]any{"type": "error", "error": map[string]any{"type": typ, "message": msg}, "request_id": "req_" + id(msg, 0)[:24]}
	case Ollama:
		doc = map[string]any{"error": msg}
	default:
		typ, code := "invalid_request_error", any(nil)
		switch {
		case status == http.StatusTooManyRequests:
			typ, code = "requests", "rate_limit_exceeded"
		case status >= 500:
			typ = "server_error"
		}
		doc = map[string]any{"error": map[string]any{"message": msg, "type": typ, "param": nil, "code": code}}
	}
	b, _ := json.Marshal(doc)
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	w.Write(b)
}

// serveList answers GET /api/tags (Ollama) and GET …/models (the others).
func (p *Provider) serveList(w http.ResponseWriter, r *http.Request) {
	var doc any
	switch {
	case p.Kind == Ollama && r.URL.Path == "/api/tags":
		var ms []map[string]any
		for _, m := range p.opts.Models {
			ms = append(ms, map[string]any{"name": m, "model": m, "modified_at": "2026-11-20T10:00:00Z", "size": 5225388164,
				"digest": id(m, 0), "details": map[string]any{"format": "gguf", "family": "qwen3", "parameter_size": "8.2B", "quantization_level": "Q4_K_M"}})
		}
		doc = map[string]any{"models": ms}
	case p.Kind != Ollama && strings.HasSuffix(r.URL.Path, "/models"):
		var ms []map[string]any
		for _, m := range p.opts.Models {
			ms = append(ms, map[string]any{"id": m, "object": "model", "created": 1764451000, "owned_by": "vllm"})
		}
		doc = map[string]any{"object": "list", "data": ms}
	default:
		http.NotFound(w, r)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(doc)
}

// id derives a stable identifier from the text it answers.
func id(seed string, n int) string {
	h := sha256.Sum256([]byte(fmt.Sprintf("%s|%d", seed, n)))
	return hex.EncodeToString(h[:])
}

// tokens is the fake's tokenizer: about four bytes a token.
func tokens(s string) int { return (len(s) + 3) / 4 }

// decode dispatches on the kind.
func (p *Provider) decode(body []byte) (Conversation, error) {
	var c Conversation
	var err error
	switch p.Kind {
	case Ollama:
		c, err = decodeOllama(body)
	case Anthropic:
		c, err = decodeAnthropic(body)
	case Responses:
		c, err = decodeResponses(body)
	default:
		c, err = decodeChat(body)
	}
	if err != nil {
		return c, err
	}
	c.resolveTools()
	return c, nil
}

// resolveTools names each tool result after the call it answers.
func (c *Conversation) resolveTools() {
	names := map[string]string{}
	for i, m := range c.Msgs {
		for _, call := range m.Calls {
			names[call.ID] = call.Name
		}
		if m.Role == "tool" && m.Tool == "" {
			c.Msgs[i].Tool = names[m.CallID]
		}
	}
}

func (p *Provider) validate(body []byte, c *Conversation) string {
	if len(p.opts.Models) > 0 && p.Kind == Ollama && !slices.Contains(p.opts.Models, c.Model) {
		return fmt.Sprintf("model %q not found, try pulling it first", c.Model)
	}
	switch p.Kind {
	case Anthropic:
		return p.validateAnthropic(body)
	case Responses:
		return p.validateResponses(body)
	case Ollama:
		return ""
	}
	return validateChat(body, p.Kind)
}

func (p *Provider) behavior(c *Conversation) Behavior {
	if b, ok := p.opts.Behaviors[c.Model]; ok {
		return b
	}
	return p.opts.Default
}

func (p *Provider) encode(c *Conversation, t Turn) (reply, Usage) {
	switch p.Kind {
	case Ollama:
		return encodeOllama(c, t)
	case Anthropic:
		return p.encodeAnthropic(c, t)
	case Responses:
		return p.encodeResponses(c, t)
	}
	return encodeChat(p.Kind, c, t)
}

// promptTokens counts what the request carried.
// cachedTokens is the part of a prompt the fake says it read from its
// cache: the system prompt, from the second turn of a conversation on.
func cachedTokens(c *Conversation) int {
	if len(c.Msgs) < 2 {
		return 0
	}
	return tokens(c.System)
}

func promptTokens(c *Conversation) int {
	n := tokens(c.System)
	for _, m := range c.Msgs {
		n += tokens(m.Text) + 4
		for _, call := range m.Calls {
			n += tokens(call.Name + call.Args)
		}
	}
	return n + 12*len(c.Tools)
}
