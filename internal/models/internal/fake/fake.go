// Package fake is a scripted HTTP server for driver tests. It answers each
// POST with the next scripted Step (the last one repeats), streams chunked
// bodies, can hang, truncate or echo the caller's credentials, and records
// every request it received. Reply bodies are fixtures in testdata/ written
// in each provider's documented wire format.
//
// Provider (provider.go) is the end-to-end counterpart: a fake that reads
// each request in its provider's wire format and answers like a model
// (Behavior.Next), so whole studies can run through the real SDKs.
package fake

import (
	"embed"
	"io"
	"net/http"
	"net/http/httptest"
	"path"
	"strings"
	"sync"
	"testing"
)

//go:embed testdata
var fixtures embed.FS

// Fixture returns a reply body from testdata; it panics on a missing name,
// which is a bug in the test.
func Fixture(name string) string {
	b, err := fixtures.ReadFile(path.Join("testdata", name))
	if err != nil {
		panic(err)
	}
	return string(b)
}

// Step is one scripted answer.
type Step struct {
	Status      int // 0 means 200
	Header      map[string]string
	ContentType string // "" means application/json
	Body        string
	// Stream writes Body line by line, flushing after each (NDJSON, SSE).
	Stream bool
	// Truncate cuts Body in half after sending the status and headers.
	Truncate bool
	// Hang sends nothing and waits until the client gives up.
	Hang bool
	// EchoAuth appends every credential header received to Body, so tests
	// can check the driver scrubs what a provider might echo.
	EchoAuth bool
}

// Request is one recorded request.
type Request struct {
	Method string
	Path   string
	Header http.Header
	Body   []byte
}

// Server is a scripted fake provider.
type Server struct {
	*httptest.Server
	mu    sync.Mutex
	steps []Step
	next  int
	reqs  []Request
	gets  map[string]Step
	hits  map[string]int
	stop  chan struct{}
}

// New starts a server on 127.0.0.1 that answers POSTs with steps in order.
func New(t testing.TB, steps ...Step) *Server {
	t.Helper()
	s := &Server{steps: steps, gets: map[string]Step{}, hits: map[string]int{}, stop: make(chan struct{})}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(func() {
		close(s.stop)
		s.Close()
	})
	return s
}

// Get scripts the answer to GET path (e.g. /api/tags, /v1/models).
func (s *Server) Get(path string, st Step) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.gets[path] = st
}

// Requests returns the POSTs received so far.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.reqs...)
}

// GetCount is how many GETs path received.
func (s *Server) GetCount(path string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.hits[path]
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	s.mu.Lock()
	var st Step
	if r.Method == http.MethodGet {
		s.hits[r.URL.Path]++
		g, ok := s.gets[r.URL.Path]
		if !ok {
			s.mu.Unlock()
			http.NotFound(w, r)
			return
		}
		st = g
	} else {
		s.reqs = append(s.reqs, Request{Method: r.Method, Path: r.URL.Path, Header: r.Header.Clone(), Body: body})
		if len(s.steps) == 0 {
			s.mu.Unlock()
			http.Error(w, `{"error":"no scripted reply"}`, http.StatusInternalServerError)
			return
		}
		st = s.steps[min(s.next, len(s.steps)-1)]
		s.next++
	}
	s.mu.Unlock()

	if st.Hang {
		select {
		case <-r.Context().Done():
		case <-s.stop:
		}
		return
	}
	out := st.Body
	if st.EchoAuth {
		for _, h := range []string{"Authorization", "X-Api-Key", "Api-Key"} {
			if v := r.Header.Get(h); v != "" {
				out = strings.Replace(out, "ECHO", "received "+h+": "+v+" ECHO", 1)
			}
		}
		out = strings.Replace(out, " ECHO", "", 1)
	}
	if st.Truncate {
		out = out[:len(out)/2]
	}
	ct := st.ContentType
	if ct == "" {
		ct = "application/json"
	}
	w.Header().Set("Content-Type", ct)
	for k, v := range st.Header {
		w.Header().Set(k, v)
	}
	status := st.Status
	if status == 0 {
		status = http.StatusOK
	}
	w.WriteHeader(status)
	if !st.Stream {
		io.WriteString(w, out)
		return
	}
	f, _ := w.(http.Flusher)
	for _, line := range strings.SplitAfter(out, "\n") {
		io.WriteString(w, line)
		if f != nil {
			f.Flush()
		}
	}
}
