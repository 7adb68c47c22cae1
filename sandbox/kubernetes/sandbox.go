package kubernetes

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hashicorp/go-hclog"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/tools/remotecommand"
	"k8s.io/client-go/util/exec"

	"github.com/killchain/killchain/sandbox"
	"github.com/killchain/killchain/sandbox/stream"
	"github.com/killchain/killchain/sandbox/warm"
)

// Sandbox is one run's pod, spoken to over an exec of the toolbox. Its
// tool calls, state and file reads are the stream client's (Call, State,
// Files; Probe in tests).
type Sandbox struct {
	stream.Client
	b    *Backend
	ns   string
	name string
	log  hclog.Logger
	// stop ends the exec stream when the sandbox closes.
	stop context.CancelFunc

	closing   atomic.Bool
	closeOnce sync.Once
	closeErr  error
}

var (
	_ sandbox.Sandbox    = (*Sandbox)(nil)
	_ sandbox.FileReader = (*Sandbox)(nil)
)

// Pod returns the sandbox's namespace and pod name.
func (s *Sandbox) Pod() (namespace, name string) { return s.ns, s.name }

// exec starts cmd in the pod's container over a WebSocket exec stream and
// connects the wire protocol to its stdin and stdout; stderr is kept to
// explain a failure.
func (s *Sandbox) exec(cmd []string) error {
	req := s.b.cs.CoreV1().RESTClient().Post().Resource("pods").Namespace(s.ns).Name(s.name).
		SubResource("exec").VersionedParams(&corev1.PodExecOptions{
		Container: ContainerName,
		Command:   cmd,
		Stdin:     true,
		Stdout:    true,
		Stderr:    true,
	}, scheme.ParameterCodec)
	ex, err := remotecommand.NewWebSocketExecutor(s.b.cfg, "GET", req.URL().String())
	if err != nil {
		return fmt.Errorf("exec: %w", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	s.stop = cancel
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	var stderr stream.Tail
	go func() {
		err := ex.StreamWithContext(ctx, remotecommand.StreamOptions{Stdin: inR, Stdout: outW, Stderr: &stderr})
		inR.Close()
		outW.CloseWithError(err)
	}()
	conn := stream.New(inW, outR, func(streamErr error) error {
		if s.closing.Load() {
			return stream.ErrClosed
		}
		return s.b.diagnose(s.ns, s.name, streamErr, stderr.String())
	})
	s.Client = stream.Client{Conn: conn, Run: s.Run, Limiter: s.b.limit, Timeout: s.b.opts.CallTimeout}
	return nil
}

// diagnose explains why the exec stream of a pod ended: the pod's status
// (OOM-killed, evicted, gone), the toolbox's exit code and stderr, or a
// lost connection.
func (b *Backend) diagnose(ns, name string, streamErr error, stderr string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	detail := ""
	if stderr != "" {
		detail = ": " + stderr
	}
	pod, err := b.cs.CoreV1().Pods(ns).Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return sandbox.Failf(sandbox.FaultExited, "%w: exec stream ended and pod %s is gone (%v)%s", warm.ErrExited, name, err, detail)
	}
	if st := podState(pod); st.fail != nil {
		return fmt.Errorf("%w%s", st.fail, detail)
	}
	var code exec.CodeExitError
	if errors.As(streamErr, &code) {
		if code.Code == 137 {
			// SIGKILL of the toolbox in a running pod: the container's
			// memory limit (nothing else in a sandbox pod sends it).
			return sandbox.Failf(sandbox.FaultOOMKilled, "%w (toolbox killed by SIGKILL in pod %s, memory limit %d MiB)%s", warm.ErrOOMKilled, name, b.opts.MemoryMB, detail)
		}
		return sandbox.Failf(sandbox.FaultExited, "%w: toolbox in pod %s exited with code %d%s", warm.ErrExited, name, code.Code, detail)
	}
	if streamErr != nil {
		return sandbox.Failf(sandbox.FaultExited, "%w: exec stream to pod %s lost: %v%s", warm.ErrExited, name, streamErr, detail)
	}
	return fmt.Errorf("%w: exec stream to pod %s closed%s", stream.ErrClosed, name, detail)
}

// Close ends the exec and deletes the pod, on a context apart from ctx
// bounded by CleanupTimeout; it is safe to call twice.
func (s *Sandbox) Close(ctx context.Context) error {
	s.closeOnce.Do(func() {
		s.closing.Store(true)
		if s.Conn != nil {
			s.Conn.Close()
			select { // the toolbox exits at EOF; give it a moment
			case <-s.Conn.Done():
			case <-time.After(2 * time.Second):
			}
		}
		if s.stop != nil {
			s.stop()
		}
		s.closeErr = s.b.deletePod(ctx, s.ns, s.name)
		s.b.forget(s)
		s.log.Debug("sandbox deleted", "error", s.closeErr)
	})
	return s.closeErr
}

// deletePod deletes a pod without waiting for it to go.
func (b *Backend) deletePod(ctx context.Context, ns, name string) error {
	cctx, cancel := b.cleanupCtx(ctx)
	defer cancel()
	grace := int64(0)
	err := b.cs.CoreV1().Pods(ns).Delete(cctx, name, metav1.DeleteOptions{GracePeriodSeconds: &grace})
	if err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("delete pod %s/%s: %w", ns, name, err)
	}
	return nil
}
