package cli

import (
	"strings"
	"testing"

	"github.com/moby/moby/client"

	"github.com/killchain/killchain/sandbox/docker/dockertest"
)

// TestDockerHintNamesTheRealCause: the advice to check that Docker runs
// comes only when Docker does not answer; a study Docker refuses for
// another reason (a runtime it lacks) says that reason alone.
func TestDockerHintNamesTheRealCause(t *testing.T) {
	const hint = "is the Docker daemon running"
	src := `study "hint" {
  seed    = 1
  output  = "OUT"
  sandbox = "docker"
  RUNTIME
}
model "compliant" {
  provider = "scripted"
  policy   = "compliant"
}
grid "g" {
  tasks      = ["tool_poison"]
  variants   = ["direct"]
  models     = ["compliant"]
  conditions = ["plain"]
}
`
	for _, tc := range []struct {
		name, runtime, dockerHost, want string
		hint                            bool
	}{
		{name: "docker unreachable", dockerHost: "unix:///nonexistent/docker.sock", want: "docker is not reachable", hint: true},
		{name: "runtime missing", runtime: `runtime = "runsc"`, want: `runtime "runsc" is not installed`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.dockerHost != "" {
				t.Setenv("DOCKER_HOST", tc.dockerHost)
			} else {
				cli := dockertest.Require(t)
				info, err := cli.Info(t.Context(), client.InfoOptions{})
				cli.Close()
				if err != nil {
					t.Fatal(err)
				}
				if _, ok := info.Info.Runtimes["runsc"]; ok {
					t.Skip("this Docker daemon has gVisor (runsc): no runtime is missing")
				}
			}
			dir := t.TempDir()
			p := writeStudy(t, strings.NewReplacer("OUT", dir+"/out", "RUNTIME", tc.runtime).Replace(src))
			code, _, stderr := killchain("run", "-q", p)
			if code == 0 {
				t.Fatalf("the study ran: %s", stderr)
			}
			if !strings.Contains(stderr, tc.want) {
				t.Errorf("stderr does not say %q:\n%s", tc.want, stderr)
			}
			if got := strings.Contains(stderr, hint); got != tc.hint {
				t.Errorf("hint shown %v, want %v:\n%s", got, tc.hint, stderr)
			}
		})
	}
}
