package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/killchain/killchain/internal/results"
	"github.com/killchain/killchain/sandbox/docker/dockertest"
)

// TestSelfContained builds killchain as `make build-main` does, copies the
// binary alone into an empty folder outside the repository, and runs it
// there with no Go toolchain on PATH: it reads its study, runs it in the
// local sandbox and (where Docker answers) in Docker, building the images
// it needs from the bytes built into it, and reports it.
func TestSelfContained(t *testing.T) {
	if testing.Short() {
		t.Skip("builds killchain")
	}
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no Go toolchain to build killchain with")
	}
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "images", "bin", "toolbox")); err != nil {
		gen := exec.Command(goBin, "generate", "./images")
		gen.Dir = root
		if out, err := gen.CombinedOutput(); err != nil {
			t.Fatalf("go generate ./images: %v\n%s", err, out)
		}
	}
	build := t.TempDir()
	cmd := exec.Command(goBin, "build", "-trimpath", "-ldflags", "-s -w", "-o", filepath.Join(build, "killchain"), "./cmd/killchain")
	cmd.Dir, cmd.Env = root, append(os.Environ(), "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	dir := t.TempDir()
	if strings.HasPrefix(dir, root) {
		t.Fatalf("temporary folder %s is inside the repository", dir)
	}
	bin := filepath.Join(dir, "killchain")
	data, err := os.ReadFile(filepath.Join(build, "killchain"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bin, data, 0o755); err != nil {
		t.Fatal(err)
	}
	env := noGo(t)
	run := func(t *testing.T, want int, args ...string) string {
		t.Helper()
		c := exec.Command(bin, args...)
		c.Dir, c.Env = dir, env
		var out bytes.Buffer
		c.Stdout, c.Stderr = &out, &out
		err := c.Run()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		if code != want {
			t.Fatalf("killchain %s: exit %d, want %d\n%s", strings.Join(args, " "), code, want, out.String())
		}
		return out.String()
	}
	for _, sb := range []string{"local", "docker"} {
		t.Run(sb, func(t *testing.T) {
			if sb == "docker" {
				dockertest.Require(t).Close()
			}
			study := filepath.Join(dir, sb+".hcl")
			if err := os.WriteFile(study, []byte(strings.ReplaceAll(selfStudy, "SANDBOX", sb)), 0o644); err != nil {
				t.Fatal(err)
			}
			run(t, 0, "validate", sb+".hcl")
			run(t, 0, "run", "-q", sb+".hcl")
			out := filepath.Join(dir, "runs", sb)
			n := 0
			if err := results.ReadRuns(filepath.Join(out, results.RunsFile), func(r results.Run) error {
				n++
				if r.Error != "" {
					t.Errorf("run %s: %s", r.RunID, r.Error)
				}
				return nil
			}); err != nil {
				t.Fatal(err)
			}
			if n != 2 {
				t.Errorf("%d runs recorded, want 2", n)
			}
			run(t, 0, "report", out)
			if _, err := os.Stat(filepath.Join(out, "report", "report.html")); err != nil {
				t.Error(err)
			}
		})
	}
}

// selfStudy is the study the copied binary runs: two runs of a built-in
// task with a scripted reference agent.
const selfStudy = `study "self" {
  seed        = 7
  concurrency = 2
  output      = "runs/SANDBOX"
  sandbox     = "SANDBOX"
  max_turns   = 10
}

model "compliant" {
  provider = "scripted"
  policy   = "compliant"
}

grid "g" {
  tasks      = ["tool_poison"]
  variants   = ["direct"]
  models     = ["compliant"]
  conditions = ["plain", "hack"]
  repeats    = 1
}
`

// noGo is the environment with every folder that holds a go command
// taken off PATH.
func noGo(t *testing.T) []string {
	t.Helper()
	var keep []string
	for _, d := range filepath.SplitList(os.Getenv("PATH")) {
		if _, err := os.Stat(filepath.Join(d, "go")); err == nil {
			continue
		}
		keep = append(keep, d)
	}
	var env []string
	for _, kv := range os.Environ() {
		if strings.HasPrefix(kv, "PATH=") || strings.HasPrefix(kv, "GOROOT=") || strings.HasPrefix(kv, "GOPATH=") || strings.HasPrefix(kv, "GOFLAGS=") {
			continue
		}
		env = append(env, kv)
	}
	env = append(env, "PATH="+strings.Join(keep, string(filepath.ListSeparator)))
	c := exec.Command("sh", "-c", "command -v go || true")
	c.Env = env
	if out, _ := c.Output(); len(bytes.TrimSpace(out)) > 0 {
		t.Fatalf("go is still on PATH: %s", out)
	}
	return env
}
