package docker

import (
	"context"
	"errors"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/moby/moby/client"
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
	const marker = "KILLCHAIN_TEST_HOST_MARKER"
	t.Setenv(marker, "host-secret-value")
	t.Setenv("OPENAI_API_KEY", "sk-test-must-not-leak")
	b := newBackend(t, Options{PidsLimit: 48})
	study := uniqueStudy(t)
	s := openProbe(t, b, study, "probe")
	ctx := context.Background()

	t.Run("only loopback", func(t *testing.T) {
		res, err := s.probe(ctx, "net", 0)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(res.Lines, []string{"lo"}) {
			t.Errorf("interfaces = %v, want [lo]", res.Lines)
		}
	})
	t.Run("no capabilities and not root", func(t *testing.T) {
		res, err := s.probe(ctx, "status", 0)
		if err != nil {
			t.Fatal(err)
		}
		if res.UID == 0 {
			t.Error("uid is 0")
		}
		seen := map[string]string{}
		for _, l := range res.Lines {
			k, v, _ := strings.Cut(l, ":")
			seen[k] = strings.TrimSpace(v)
		}
		for _, k := range []string{"CapEff", "CapPrm", "CapBnd", "CapAmb"} {
			if v, ok := seen[k]; !ok || strings.Trim(v, "0") != "" {
				t.Errorf("%s = %q, want all zero", k, v)
			}
		}
		if seen["NoNewPrivs"] != "1" {
			t.Errorf("NoNewPrivs = %q, want 1", seen["NoNewPrivs"])
		}
		if uid := strings.Fields(seen["Uid"]); len(uid) == 0 || uid[0] != "65534" {
			t.Errorf("Uid line = %q", seen["Uid"])
		}
	})
	t.Run("writes only in the state folder", func(t *testing.T) {
		res, err := s.probe(ctx, "write", 0)
		if err != nil {
			t.Fatal(err)
		}
		want := map[string]bool{"/": false, "/etc": false, "/tmp": false, StateDir: true}
		if len(res.Lines) != len(want) {
			t.Fatalf("write probe = %v", res.Lines)
		}
		for _, l := range res.Lines {
			dir, outcome, _ := strings.Cut(l, ": ")
			if ok := outcome == "ok"; ok != want[dir] {
				t.Errorf("write in %s: %s", dir, outcome)
			}
		}
	})
	t.Run("no host environment", func(t *testing.T) {
		res, err := s.probe(ctx, "env", 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, kv := range res.Lines {
			k, _, _ := strings.Cut(kv, "=")
			if k != "PATH" && k != "HOSTNAME" && k != "HOME" {
				t.Errorf("unexpected variable %q in the sandbox", kv)
			}
			if strings.Contains(kv, os.Getenv(marker)) || strings.Contains(kv, "sk-test") {
				t.Errorf("host value leaked: %q", kv)
			}
		}
	})
	t.Run("fork bomb stopped by the pids limit", func(t *testing.T) {
		res, err := s.probe(ctx, "fork", 10)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(res.Err, "EAGAIN") {
			t.Errorf("fork loop ended with %q after %d processes, want EAGAIN", res.Err, res.Count)
		}
		if res.Count >= 48 {
			t.Errorf("%d processes started under a limit of 48", res.Count)
		}
		// The sandbox survives and still serves tools.
		if got := call(t, s, "a", "list_memory", nil); got.Error != "" {
			t.Errorf("after the fork bomb: %+v", got)
		}
	})
}

func TestMemoryHogIsSandboxError(t *testing.T) {
	b := newBackend(t, Options{MemoryMB: 32})
	s := openProbe(t, b, uniqueStudy(t), "hog")
	ctx := context.Background()
	_, err := s.probe(ctx, "alloc", 256)
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
	b := newBackend(t, Options{CallTimeout: 300 * time.Millisecond})
	s := openProbe(t, b, uniqueStudy(t), "slow")
	ctx := context.Background()
	start := time.Now()
	_, err := s.probe(ctx, "sleep", 5)
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

func containerKillOptions() client.ContainerKillOptions {
	return client.ContainerKillOptions{Signal: "KILL"}
}
