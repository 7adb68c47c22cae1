package docker

import (
	"io"

	"github.com/moby/moby/api/pkg/stdcopy"
	"github.com/moby/moby/client"

	"github.com/killchain/killchain/sandbox/stream"
)

// newConn speaks the wire protocol over a container's attached
// stdin/stdout. The container has no TTY, so Docker multiplexes stdout and
// stderr on the stream; a goroutine demultiplexes them. onEnd explains why
// the stream ended from the read error and the toolbox's last stderr.
func newConn(hj client.HijackedResponse, onEnd func(streamErr error, stderr string) error) *stream.Conn {
	var stderr stream.Tail
	pr, pw := io.Pipe()
	go func() {
		_, err := stdcopy.StdCopy(pw, &stderr, hj.Reader)
		pw.CloseWithError(err)
	}()
	return stream.New(hijackCloser{hj}, pr, func(streamErr error) error {
		return onEnd(streamErr, stderr.String())
	})
}

// hijackCloser writes requests to the attach connection; Close ends it.
type hijackCloser struct{ hj client.HijackedResponse }

func (h hijackCloser) Write(p []byte) (int, error) { return h.hj.Conn.Write(p) }
func (h hijackCloser) Close() error                { h.hj.Close(); return nil }
