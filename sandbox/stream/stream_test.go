package stream

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/killchain/killchain/sandbox"
	"github.com/killchain/killchain/sandbox/admit"
	"github.com/killchain/killchain/sandbox/wire"
)

// peer is the toolbox's side of a stream: it reads requests and answers
// them as the test's handler says.
type peer struct {
	reqs chan wire.Request
	out  *io.PipeWriter
}

// pair connects a client to a peer over two pipes; ended is what onEnd
// returns.
func pair(t *testing.T, ended error) (*Client, *peer) {
	t.Helper()
	reqR, reqW := io.Pipe()
	respR, respW := io.Pipe()
	p := &peer{reqs: make(chan wire.Request, 16), out: respW}
	go func() {
		sc := bufio.NewScanner(reqR)
		for sc.Scan() {
			var r wire.Request
			if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
				t.Errorf("peer: %v", err)
				return
			}
			p.reqs <- r
		}
		close(p.reqs)
	}()
	conn := New(reqW, respR, func(streamErr error) error {
		if streamErr != nil {
			return errors.Join(ended, streamErr)
		}
		return ended
	})
	t.Cleanup(func() { conn.Close(); respW.Close() })
	return &Client{Conn: conn, Run: "r1", Limiter: admit.New(1, nil), Timeout: time.Second}, p
}

func (p *peer) answer(t *testing.T, id uint64, result any) {
	t.Helper()
	raw, _ := json.Marshal(result)
	line, _ := json.Marshal(wire.Response{ID: id, Result: raw})
	if _, err := p.out.Write(append(line, '\n')); err != nil {
		t.Fatal(err)
	}
}

func TestResponsesMatchTheirRequests(t *testing.T) {
	c, p := pair(t, errors.New("gone"))
	ctx := context.Background()
	type res struct {
		n   int
		err error
	}
	results := make(chan res, 2)
	for range 2 {
		go func() {
			var n int
			err := c.Request(ctx, wire.Request{Op: wire.OpState}, &n)
			results <- res{n, err}
		}()
	}
	a, b := <-p.reqs, <-p.reqs
	// Answer out of order: each reply reaches the request with its ID.
	p.answer(t, b.ID, int(b.ID)*10)
	p.answer(t, a.ID, int(a.ID)*10)
	got := map[int]bool{}
	for range 2 {
		r := <-results
		if r.err != nil {
			t.Fatal(r.err)
		}
		got[r.n] = true
	}
	if !got[int(a.ID)*10] || !got[int(b.ID)*10] {
		t.Errorf("results %v for ids %d, %d", got, a.ID, b.ID)
	}
}

func TestStreamFailures(t *testing.T) {
	ended := errors.New("container exited with code 137")
	for _, tc := range []struct {
		name  string
		peer  func(t *testing.T, p *peer)
		check func(t *testing.T, err error)
	}{
		{"no answer in time", func(t *testing.T, p *peer) { <-p.reqs }, func(t *testing.T, err error) {
			if !errors.Is(err, ErrTimeout) || sandbox.FaultOf(err) != sandbox.FaultTimeout {
				t.Errorf("err = %v (fault %q), want a timeout", err, sandbox.FaultOf(err))
			}
		}},
		{"stream ends", func(t *testing.T, p *peer) { <-p.reqs; p.out.Close() }, func(t *testing.T, err error) {
			if !errors.Is(err, ended) {
				t.Errorf("err = %v, want the end's explanation", err)
			}
		}},
		{"garbage line", func(t *testing.T, p *peer) { <-p.reqs; p.out.Write([]byte("not json\n")) }, wantProtocol("bad response line")},
		{"answer to no request", func(t *testing.T, p *peer) {
			r := <-p.reqs
			p.answer(t, r.ID+7, 1)
		}, wantProtocol("no request in flight (id 8)")},

		{"toolbox error", func(t *testing.T, p *peer) {
			r := <-p.reqs
			line, _ := json.Marshal(wire.Response{ID: r.ID, Error: "disk full"})
			p.out.Write(append(line, '\n'))
		}, func(t *testing.T, err error) {
			if err == nil || !strings.Contains(err.Error(), "disk full") {
				t.Errorf("err = %v", err)
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, p := pair(t, ended)
			c.Timeout = 200 * time.Millisecond
			go tc.peer(t, p)
			var n int
			err := c.Request(context.Background(), wire.Request{Op: wire.OpState}, &n)
			tc.check(t, err)
			// A failed stream stays failed: no later answer can be trusted.
			if tc.name != "toolbox error" {
				if err2 := c.Request(context.Background(), wire.Request{Op: wire.OpState}, &n); err2 == nil {
					t.Error("a request after the failure succeeded")
				}
			}
		})
	}
}

// TestSecondAnswerBreaksTheStream: a forger that answers a request before
// the toolbox does is found out when the toolbox's own answer comes: an
// answer to no request in flight ends the stream with a protocol fault.
func TestSecondAnswerBreaksTheStream(t *testing.T) {
	c, p := pair(t, errors.New("gone"))
	go func() {
		r := <-p.reqs
		p.answer(t, r.ID, 1)
		line, _ := json.Marshal(wire.Response{ID: r.ID, Result: json.RawMessage("2")})
		p.out.Write(append(line, '\n'))
	}()
	var n int
	if err := c.Request(context.Background(), wire.Request{Op: wire.OpState}, &n); err != nil || n != 1 {
		t.Fatalf("first answer: %d, %v", n, err)
	}
	<-c.Conn.Done()
	wantProtocol("no request in flight (id 1)")(t, c.Conn.Ended())
	if err := c.Request(context.Background(), wire.Request{Op: wire.OpState}, &n); sandbox.FaultOf(err) != sandbox.FaultProtocol {
		t.Errorf("after the second answer: err = %v, want the protocol fault", err)
	}
}

func wantProtocol(msg string) func(t *testing.T, err error) {
	return func(t *testing.T, err error) {
		t.Helper()
		if !errors.Is(err, ErrProtocol) || sandbox.FaultOf(err) != sandbox.FaultProtocol || !strings.Contains(err.Error(), msg) {
			t.Errorf("err = %v (fault %q), want a protocol error saying %q", err, sandbox.FaultOf(err), msg)
		}
	}
}

// TestLateAnswerToAbandonedRequestIsDropped: an answer that arrives after
// its request timed out is expected, not a protocol violation; the stream
// stays marked by the timeout.
func TestLateAnswerToAbandonedRequestIsDropped(t *testing.T) {
	c, p := pair(t, errors.New("gone"))
	c.Timeout = 100 * time.Millisecond
	var n int
	if err := c.Request(context.Background(), wire.Request{Op: wire.OpState}, &n); !errors.Is(err, ErrTimeout) {
		t.Fatalf("err = %v, want a timeout", err)
	}
	r := <-p.reqs
	p.answer(t, r.ID, 1)
	select {
	case <-c.Conn.Done():
		t.Fatalf("the late answer ended the stream: %v", c.Conn.Ended())
	case <-time.After(100 * time.Millisecond):
	}
	if err := c.Request(context.Background(), wire.Request{Op: wire.OpState}, &n); !errors.Is(err, ErrTimeout) {
		t.Errorf("after the timeout: err = %v, want the timeout again", err)
	}
}

// TestOversizedResponseIsProtocolError: a sandbox that writes a response
// line of 1.5 GB (a forged or runaway line) is cut off at
// wire.MaxResponse; the request is a protocol error and the host allocates
// a bounded amount, not the line.
func TestOversizedResponseIsProtocolError(t *testing.T) {
	c, p := pair(t, errors.New("gone"))
	const flood = 1536 << 20
	written := make(chan int64, 1)
	go func() {
		<-p.reqs
		m, _ := p.out.Write([]byte(`{"id":1,"result":"`))
		n := int64(m)
		chunk := []byte(strings.Repeat("A", 1<<20))
		for n < flood {
			m, err := p.out.Write(chunk)
			n += int64(m)
			if err != nil {
				break
			}
		}
		written <- n
	}()
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before) // the peer's 1 MiB chunk is allocated before
	c.Timeout = time.Minute
	var out string
	err := c.Request(context.Background(), wire.Request{Op: wire.OpState}, &out)
	runtime.ReadMemStats(&after)
	wantProtocol("over the protocol's limit")(t, err)
	n := <-written
	if n >= flood || n > wire.MaxResponse+2<<20 {
		t.Errorf("the sandbox wrote %d bytes before it was cut off, want at most about %d", n, wire.MaxResponse)
	}
	alloc := after.TotalAlloc - before.TotalAlloc
	t.Logf("sandbox wrote %d MiB before the cut; the host allocated %d MiB reading it", n>>20, alloc>>20)
	if alloc > 4*wire.MaxResponse {
		t.Errorf("the host allocated %d MiB reading a cut-off line, want under %d MiB", alloc>>20, 4*wire.MaxResponse>>20)
	}
}

func TestCancelledRequestMarksTheStreamBroken(t *testing.T) {
	c, p := pair(t, errors.New("gone"))
	ctx, cancel := context.WithCancel(context.Background())
	go func() { <-p.reqs; cancel() }()
	var n int
	if err := c.Request(ctx, wire.Request{Op: wire.OpState}, &n); !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want cancelled", err)
	}
	if err := c.Request(context.Background(), wire.Request{Op: wire.OpState}, &n); !errors.Is(err, ErrClosed) {
		t.Errorf("after a cancel: err = %v, want %v", err, ErrClosed)
	}
}

// TestCancelledContextSendsNothing: a request on a context already
// cancelled is not sent, so a fast sandbox cannot answer it.
func TestCancelledContextSendsNothing(t *testing.T) {
	c, p := pair(t, errors.New("gone"))
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var n int
	if err := c.Request(ctx, wire.Request{Op: wire.OpState}, &n); !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want cancelled", err)
	}
	select {
	case r := <-p.reqs:
		t.Fatalf("the sandbox received %s", r.Op)
	case <-time.After(50 * time.Millisecond):
	}
}

// TestWriteFailsAsTheStreamEnds: a sandbox that dies closes its stdin
// before its stdout ends; the request that meets the closed stdin reports
// why the stream ended, not a pipe error.
func TestWriteFailsAsTheStreamEnds(t *testing.T) {
	ended := errors.New("pod was deleted")
	reqR, reqW := io.Pipe()
	respR, respW := io.Pipe()
	conn := New(reqW, respR, func(error) error {
		time.Sleep(100 * time.Millisecond) // a diagnosis takes a while
		return ended
	})
	c := &Client{Conn: conn, Run: "r1", Limiter: admit.New(1, nil), Timeout: time.Second}
	reqR.Close()
	go func() { time.Sleep(50 * time.Millisecond); respW.Close() }()
	var n int
	if err := c.Request(context.Background(), wire.Request{Op: wire.OpState}, &n); !errors.Is(err, ended) {
		t.Errorf("err = %v, want %v", err, ended)
	}
	// After Close, a failed write is ours and answers at once.
	conn.Close()
	start := time.Now()
	if err := c.Request(context.Background(), wire.Request{Op: wire.OpState}, &n); err == nil || time.Since(start) > time.Second {
		t.Errorf("after close: err = %v after %s", err, time.Since(start))
	}
}
