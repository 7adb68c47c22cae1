package docker

import (
	"context"
	"errors"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/moby/moby/api/types/container"
	"github.com/moby/moby/client"

	"github.com/killchain/killchain/internal/sandboxtest"
	"github.com/killchain/killchain/sandbox/warm"
)

// The hardening tests look at the sandbox from the inside through the
// toolbox's test-only probe op (cmd/toolbox/probe.go).

func openProbe(t *testing.T, b *Backend, study, run string) *Sandbox {
	t.Helper()
	ctx := context.Background()
	sb, err := b.open(ctx, testEnv(study, run))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sb.Close(ctx) })
	return sb
}

func TestHardeningFromInside(t *testing.T) {
	sandboxtest.SetHostSecrets(t)
	b := newBackend(t, Options{PidsLimit: 48})
	s := openProbe(t, b, uniqueStudy(t), "probe")
	sandboxtest.Hardening(t, s, s.Probe, sandboxtest.Want{Interfaces: []string{"lo"}, PidsLimit: 48, StateDir: warm.StateDir})
}

func TestMemoryHogIsSandboxError(t *testing.T) {
	b := newBackend(t, Options{Options: warm.Options{MemoryMB: 32}})
	s := openProbe(t, b, uniqueStudy(t), "hog")
	ctx := context.Background()
	_, err := s.Probe(ctx, "alloc", 256)
	if !errors.Is(err, ErrOOMKilled) {
		t.Fatalf("memory hog: err = %v, want %v", err, ErrOOMKilled)
	}
	if _, err := s.Call(ctx, "a", "list_memory", nil); !errors.Is(err, ErrOOMKilled) {
		t.Errorf("call after the OOM kill: err = %v, want %v", err, ErrOOMKilled)
	}
	if _, err := s.State(ctx); !errors.Is(err, ErrOOMKilled) {
		t.Errorf("state after the OOM kill: err = %v, want %v", err, ErrOOMKilled)
	}
}

func TestUnansweredCallTimesOut(t *testing.T) {
	b := newBackend(t, Options{Options: warm.Options{CallTimeout: 300 * time.Millisecond}})
	s := openProbe(t, b, uniqueStudy(t), "slow")
	ctx := context.Background()
	start := time.Now()
	_, err := s.Probe(ctx, "sleep", 5)
	if !errors.Is(err, ErrTimeout) {
		t.Fatalf("err = %v, want %v", err, ErrTimeout)
	}
	if d := time.Since(start); d > 3*time.Second {
		t.Errorf("timeout took %s", d)
	}
	if _, err := s.Call(ctx, "a", "list_memory", nil); !errors.Is(err, ErrTimeout) {
		t.Errorf("call after a timeout: err = %v, want the sandbox marked broken", err)
	}
}

func TestDiedContainerIsSandboxError(t *testing.T) {
	b := newBackend(t, Options{})
	s := openProbe(t, b, uniqueStudy(t), "dies")
	ctx := context.Background()
	if _, err := b.cli.ContainerKill(ctx, s.ID(), containerKillOptions()); err != nil {
		t.Fatal(err)
	}
	_, err := s.Call(ctx, "a", "list_memory", nil)
	if !errors.Is(err, ErrExited) || !strings.Contains(err.Error(), "137") {
		t.Fatalf("err = %v, want %v with code 137", err, ErrExited)
	}
}

// A SIGKILL that came neither through the Docker API nor with the daemon's
// OOM flag (here: kill -9 of the container's process from the host, as the
// kernel's OOM killer does when containerd loses the OOM event) is an OOM
// kill inferred, still a sandbox error.
func TestUnrecordedSigkillIsInferredOOM(t *testing.T) {
	b := newBackend(t, Options{Options: warm.Options{MemoryMB: 64}})
	s := openProbe(t, b, uniqueStudy(t), "sigkill")
	ctx := context.Background()
	ins, err := b.cli.ContainerInspect(ctx, s.ID(), client.ContainerInspectOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if host := os.Getenv("DOCKER_HOST"); host != "" && !strings.HasPrefix(host, "unix://") {
		t.Skipf("the daemon is not on this host (DOCKER_HOST=%s): its container's pid means nothing here", host)
	}
	if err := syscall.Kill(ins.Container.State.Pid, syscall.SIGKILL); err != nil {
		if errors.Is(err, syscall.EPERM) || errors.Is(err, syscall.ESRCH) {
			t.Skipf("kill -9 the container's process %d needs root and the daemon in this pid namespace: %v", ins.Container.State.Pid, err)
		}
		t.Fatal(err)
	}
	_, err = s.Call(ctx, "a", "list_memory", nil)
	if !errors.Is(err, ErrOOMKilled) || !strings.Contains(err.Error(), "inferred") {
		t.Fatalf("err = %v, want %v, inferred", err, ErrOOMKilled)
	}
}

func TestExitEventsInferOOM(t *testing.T) {
	tests := []struct {
		name string
		ev   exitEvents
		want bool
	}{
		{"died, no kill", exitEvents{die: true}, true},
		{"oom event", exitEvents{oom: true}, true},
		{"oom and die", exitEvents{oom: true, die: true}, true},
		{"kill through the API", exitEvents{kill: true, die: true}, false},
		{"oom and kill", exitEvents{oom: true, kill: true, die: true}, true},
		{"log no longer reaches back", exitEvents{}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.ev.inferOOM(); got != tt.want {
				t.Errorf("inferOOM = %v, want %v", got, tt.want)
			}
		})
	}
}

func containerKillOptions() client.ContainerKillOptions {
	return client.ContainerKillOptions{Signal: "KILL"}
}

func TestOOMPending(t *testing.T) {
	tests := []struct {
		name  string
		st    *container.State
		limit int64
		want  bool
	}{
		{"no state", nil, 32, false},
		{"sigkill under a limit, no flag yet", &container.State{ExitCode: 137}, 32, true},
		{"flag recorded", &container.State{ExitCode: 137, OOMKilled: true}, 32, false},
		{"no memory limit", &container.State{ExitCode: 137}, 0, false},
		{"still running", &container.State{Running: true, ExitCode: 0}, 32, false},
		{"plain exit", &container.State{ExitCode: 2}, 32, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := oomPending(tt.st, tt.limit); got != tt.want {
				t.Errorf("oomPending = %v, want %v", got, tt.want)
			}
		})
	}
}
