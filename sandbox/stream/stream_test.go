package stream

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
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
		{"garbage line", func(t *testing.T, p *peer) { <-p.reqs; p.out.Write([]byte("not json\n")) }, func(t *testing.T, err error) {
			if !errors.Is(err, ended) || !strings.Contains(err.Error(), "bad response line") {
				t.Errorf("err = %v", err)
			}
		}},
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
