// Package sandboxtest holds the checks every sandbox backend must pass,
// run from inside a sandbox through the toolbox's test-only probe op
// (cmd/toolbox/probe.go), so that Docker containers and Kubernetes pods are
// held to the same test.
package sandboxtest

import (
	"context"
	"encoding/json"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/killchain/killchain/sandbox"
	"github.com/killchain/killchain/sandbox/wire"
)

// Probe runs one probe inside a sandbox.
type Probe func(ctx context.Context, name string, arg int) (wire.ProbeResult, error)

// Want is what a backend's sandboxes must show from the inside.
type Want struct {
	// Interfaces are the network interfaces the sandbox may have.
	Interfaces []string
	// PidsLimit is the process limit a fork loop must meet.
	PidsLimit int
	// StateDir is the one writable folder.
	StateDir string
	// EnvPrefixes are variable name prefixes the platform injects beyond
	// PATH, HOSTNAME and HOME (Kubernetes' KUBERNETES_SERVICE_*); they
	// must hold no host value either.
	EnvPrefixes []string
}

// HostMarker is set in the test's environment by Hardening; it must never
// reach a sandbox, nor must an API key.
const HostMarker = "KILLCHAIN_TEST_HOST_MARKER"

// SetHostSecrets puts a marker and a fake API key in the test process's
// environment before the sandbox opens.
func SetHostSecrets(t *testing.T) {
	t.Setenv(HostMarker, "host-secret-value")
	t.Setenv("OPENAI_API_KEY", "sk-test-must-not-leak")
}

// Hardening checks sb from the inside: its network interfaces, a non-root
// user with no capabilities and no privilege gain, a read-only root with
// only the state folder writable, no host environment (API keys included),
// and a pids limit that stops a fork loop while the sandbox goes on
// serving tools. Call SetHostSecrets before the sandbox opens.
func Hardening(t *testing.T, sb sandbox.Sandbox, probe Probe, want Want) {
	ctx := context.Background()
	t.Run("network interfaces", func(t *testing.T) {
		res, err := probe(ctx, "net", 0)
		if err != nil {
			t.Fatal(err)
		}
		got := slices.Sorted(slices.Values(res.Lines))
		if !slices.Equal(got, slices.Sorted(slices.Values(want.Interfaces))) {
			t.Errorf("interfaces = %v, want %v", got, want.Interfaces)
		}
	})
	t.Run("no capabilities and not root", func(t *testing.T) {
		res, err := probe(ctx, "status", 0)
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
		res, err := probe(ctx, "write", 0)
		if err != nil {
			t.Fatal(err)
		}
		allowed := map[string]bool{"/": false, "/etc": false, "/tmp": false, want.StateDir: true}
		if len(res.Lines) != len(allowed) {
			t.Fatalf("write probe = %v", res.Lines)
		}
		for _, l := range res.Lines {
			dir, outcome, _ := strings.Cut(l, ": ")
			if ok := outcome == "ok"; ok != allowed[dir] {
				t.Errorf("write in %s: %s", dir, outcome)
			}
		}
	})
	t.Run("no host environment", func(t *testing.T) {
		res, err := probe(ctx, "env", 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, kv := range res.Lines {
			k, _, _ := strings.Cut(kv, "=")
			if k != "PATH" && k != "HOSTNAME" && k != "HOME" && !hasAnyPrefix(k, want.EnvPrefixes) {
				t.Errorf("unexpected variable %q in the sandbox", kv)
			}
			if strings.Contains(kv, os.Getenv(HostMarker)) || strings.Contains(kv, "sk-test") {
				t.Errorf("host value leaked: %q", kv)
			}
		}
	})
	t.Run("no service-account token", func(t *testing.T) {
		res, err := probe(ctx, "secrets", 0)
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Lines) > 0 {
			t.Errorf("credentials mounted in the sandbox: %v", res.Lines)
		}
	})
	t.Run("fork bomb stopped by the pids limit", func(t *testing.T) {
		res, err := probe(ctx, "fork", 10)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(res.Err, "EAGAIN") {
			t.Errorf("fork loop ended with %q after %d processes, want EAGAIN", res.Err, res.Count)
		}
		if res.Count >= want.PidsLimit {
			t.Errorf("%d processes started under a limit of %d", res.Count, want.PidsLimit)
		}
		// The sandbox survives and still serves tools.
		res2, err := sb.Call(ctx, "a", "list_memory", json.RawMessage(`{}`))
		if err != nil || res2.Error != "" {
			t.Errorf("after the fork bomb: %+v, %v", res2, err)
		}
	})
}

func hasAnyPrefix(s string, prefixes []string) bool {
	for _, p := range prefixes {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	return false
}
