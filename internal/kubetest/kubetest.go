// Package kubetest gives a test binary a real Kubernetes cluster: Main
// starts the one-node cluster of scripts/kube/cluster.sh in a network
// namespace of its own, runs the binary's tests again inside that namespace
// (where the API server, the node and the node's registry listen on
// 127.0.0.1), then stops the cluster and removes every trace of it. Docker
// is reached over its socket as usual, so the same tests can compare both
// backends.
//
// Without what the cluster needs (root, Docker, containerd, the CNI
// plugins) the tests skip, or fail under CI (internal/testenv).
package kubetest

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/killchain/killchain/internal/testenv"
)

// Environment of the run inside the cluster's namespace.
const (
	envInside = "KILLCHAIN_KUBETEST_INSIDE" // set in the re-run
	envState  = "KILLCHAIN_KUBE_STATE"
	envNetns  = "KILLCHAIN_KUBE_NETNS"
)

// Registry is the repository prefix snapshot images are pushed to: the
// cluster's registry, the same name on the host and on the node.
const Registry = "127.0.0.1:5000/killchain"

// unavailable is why no cluster could be had ("" when one is up).
var unavailable error

// Main runs the tests of m against a fresh cluster and returns the exit
// code. Call it from TestMain: os.Exit(kubetest.Main(m)). prepare, when
// given, runs first, outside the cluster's namespace, where the network is
// the machine's: build images there (a debootstrap needs the package
// mirror, which the namespace cannot reach). Its error fails the binary.
func Main(m *testing.M, prepare ...func() error) int {
	if os.Getenv(envInside) != "" {
		return m.Run()
	}
	for _, p := range prepare {
		if err := p(); err != nil {
			fmt.Fprintln(os.Stderr, "kubetest: prepare:", err)
			return 1
		}
	}
	script, err := clusterScript()
	if err == nil {
		err = prerequisites()
	}
	if err != nil {
		unavailable = err
		return m.Run() // Require skips each test, or fails it under CI
	}
	state, err := os.MkdirTemp("/var/tmp", "killchain-kubetest-")
	if err != nil {
		unavailable = err
		return m.Run()
	}
	os.Remove(state) // cluster.sh makes it
	netns := "killchain-kt-" + strconv.Itoa(os.Getpid())
	env := append(os.Environ(), envState+"="+state, envNetns+"="+netns)
	// down stops the cluster; it fails when anything of it is left
	// (processes, mounts, cgroups, the namespace, state), and so does
	// the test binary.
	down := func() error {
		cmd := exec.Command("bash", script, "down")
		cmd.Env, cmd.Stdout, cmd.Stderr = env, os.Stderr, os.Stderr
		if err := cmd.Run(); err != nil {
			fmt.Fprintln(os.Stderr, "kubetest: cluster down:", err)
			return err
		}
		return nil
	}
	start := time.Now()
	up := exec.Command("bash", script, "up")
	up.Env, up.Stdout, up.Stderr = env, os.Stderr, os.Stderr
	if err := up.Run(); err != nil {
		down()
		unavailable = fmt.Errorf("the test cluster did not start: %w", err)
		return m.Run()
	}
	fmt.Fprintf(os.Stderr, "kubetest: cluster up in %s\n", time.Since(start).Round(100*time.Millisecond))
	code := runInside(netns, env, state)
	if down() != nil {
		return 1
	}
	return code
}

// runInside runs this test binary again, with its arguments, inside the
// cluster's network namespace, and returns its exit code.
func runInside(netns string, env []string, state string) int {
	child := exec.Command("nsenter", append([]string{"--net=/run/netns/" + netns, os.Args[0]}, os.Args[1:]...)...)
	child.Env = append(env, envInside+"=1", "KUBECONFIG="+filepath.Join(state, "kubeconfig"))
	child.Stdin, child.Stdout, child.Stderr = os.Stdin, os.Stdout, os.Stderr
	if err := child.Run(); err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) && ee.ExitCode() > 0 {
			return ee.ExitCode()
		}
		fmt.Fprintln(os.Stderr, "kubetest:", err)
		return 1
	}
	return 0
}

// Require skips t (or fails it under CI) when no cluster is up, and
// returns the cluster's kubeconfig file.
func Require(t testing.TB) string {
	t.Helper()
	if os.Getenv(envInside) == "" {
		err := unavailable
		if err == nil {
			err = errors.New("kubetest.Main did not run")
		}
		testenv.Need(t, err, "a Kubernetes test cluster")
	}
	return os.Getenv("KUBECONFIG")
}

// Import is the command that loads an image archive on stdin into the
// test cluster's node (the air-gapped way).
func Import() string {
	script, _ := clusterScript()
	return "bash " + script + " import"
}

// clusterScript finds scripts/kube/cluster.sh above this source file.
func clusterScript() (string, error) {
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		return "", errors.New("cannot find the repository")
	}
	p := filepath.Join(filepath.Dir(file), "..", "..", "scripts", "kube", "cluster.sh")
	if _, err := os.Stat(p); err != nil {
		return "", fmt.Errorf("cluster script: %w", err)
	}
	return filepath.Clean(p), nil
}

// prerequisites says what the cluster lacks on this machine, if anything.
func prerequisites() error {
	if os.Geteuid() != 0 {
		return errors.New("the test cluster needs root (network and mount namespaces, cgroups)")
	}
	if _, err := os.Stat("/sys/fs/cgroup/cgroup.controllers"); err == nil {
		return errors.New("this host has cgroup v2 only; the test cluster (scripts/kube/cluster.sh) sets up cgroup v1 hierarchies")
	}
	var missing []string
	for _, c := range []string{"docker", "containerd", "ctr", "runc", "ip", "nsenter", "unshare", "curl", "openssl", "docker-registry", "go"} {
		if _, err := exec.LookPath(c); err != nil {
			missing = append(missing, c)
		}
	}
	if _, err := os.Stat("/usr/lib/cni/bridge"); err != nil {
		missing = append(missing, "containernetworking-plugins")
	}
	if len(missing) > 0 {
		return fmt.Errorf("missing %s (scripts/deps.sh installs them)", strings.Join(missing, ", "))
	}
	if out, err := exec.Command("docker", "info", "--format", "{{.ServerVersion}}").CombinedOutput(); err != nil {
		return fmt.Errorf("docker is not reachable: %v: %s", err, strings.TrimSpace(string(out)))
	}
	return nil
}
