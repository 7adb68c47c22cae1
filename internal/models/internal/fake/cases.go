package fake

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/tidwall/sjson"

	"github.com/killchain/killchain/internal/agent"
)

// StopCase is one row of a driver's stop-reason table: what the fake
// answers and the stop reason the driver must read from it.
type StopCase struct {
	Name string
	// Stop ends the model-like Provider's turn (NoStop: it finishes it).
	Stop Stop
	// Body, when set, is answered as is by a scripted Server instead: for
	// reasons the Provider never sends (unknown, missing, malformed).
	Body   string
	Stream bool // Body is an NDJSON stream
	// NoTools sends the request without tools, so a finished turn is
	// narration alone.
	NoTools bool
	Want    agent.StopReason
	Detail  string // the provider's raw value the driver keeps
}

// Serve starts the case's server for a driver of kind k and returns its
// URL and the request to send: FirstRequest, without tools for NoTools.
func (c StopCase) Serve(t testing.TB, k Kind) (string, agent.Request) {
	t.Helper()
	req := FirstRequest()
	if c.NoTools {
		req.Tools = nil
	}
	if c.Body != "" {
		st := Step{Body: c.Body}
		if c.Stream {
			st.Stream, st.ContentType = true, "application/x-ndjson"
		}
		return New(t, st).URL, req
	}
	p := NewProvider(t, k, Options{})
	if c.Stop != NoStop {
		p.Fail(Fault{Name: string(c.Stop), Stop: c.Stop})
	}
	return p.URL, req
}

// Check runs the case against a driver built by open from the server's URL:
// one Generate, whose stop reason and the provider's raw value must be the
// case's. It returns the reply for the driver's own further checks.
func (c StopCase) Check(t testing.TB, k Kind, open func(url string) (agent.Model, error)) agent.Reply {
	t.Helper()
	url, req := c.Serve(t, k)
	m, err := open(url)
	if err != nil {
		t.Fatal(err)
	}
	r, err := m.Generate(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	if r.Stop != c.Want || r.StopDetail != c.Detail {
		t.Errorf("stop = %q (%q), want %q (%q)", r.Stop, r.StopDetail, c.Want, c.Detail)
	}
	return r
}

// Null is JSON null for Patch.
var Null = json.RawMessage("null")

// Patch returns the JSON document body with the value at path (sjson
// syntax, e.g. "choices.0.finish_reason") set, or deleted when value is
// nil; a json.RawMessage (such as Null) is written as is. It panics on a
// bad path, which is a bug in the test.
func Patch(body, path string, value any) string {
	var out string
	var err error
	switch v := value.(type) {
	case nil:
		out, err = sjson.Delete(body, path)
	case json.RawMessage:
		out, err = sjson.SetRaw(body, path, string(v))
	default:
		out, err = sjson.Set(body, path, value)
	}
	if err != nil {
		panic(err)
	}
	return out
}
