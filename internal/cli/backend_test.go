package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// audioStudy is a scripted study with audio_inject and a text task,
// writing into out.
func audioStudy(out string) string {
	return `
study "needs_audio" {
  seed    = 1
  output  = "` + out + `"
}

model "compliant" {
  provider = "scripted"
  policy   = "compliant"
}

grid "g" {
  tasks      = ["memory_poison", "audio_inject"]
  models     = ["compliant"]
  conditions = ["plain", "hack"]
}
`
}

func TestBackendWithoutAudioIsRefused(t *testing.T) {
	tests := []struct {
		name     string
		args     []string
		code     int
		stderr   []string // substrings
		noStdout bool
	}{
		{"plan on local", []string{"plan", "--sandbox", "local"}, 1,
			[]string{`sandbox "local" cannot run`, "audio_inject needs audio (speech synthesis and transcription)", "--sandbox docker", "remove audio_inject"}, true},
		{"run on local", []string{"run", "-q", "--sandbox", "local"}, 1,
			[]string{`sandbox "local" cannot run`, "audio_inject needs audio", "--sandbox docker"}, true},
		{"run --resume on local", []string{"run", "-q", "--resume", "--sandbox", "local"}, 1,
			[]string{"audio_inject needs audio"}, true},
		{"plan on docker", []string{"plan"}, 0, nil, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "out")
			file := writeStudy(t, audioStudy(out))
			code, stdout, stderr := killchain(append(tt.args, file)...)
			if code != tt.code {
				t.Fatalf("exit %d, want %d; stderr:\n%s", code, tt.code, stderr)
			}
			for _, want := range tt.stderr {
				if !strings.Contains(stderr, want) {
					t.Errorf("stderr lacks %q:\n%s", want, stderr)
				}
			}
			if tt.noStdout && stdout != "" {
				t.Errorf("stdout = %q, want nothing", stdout)
			}
			if _, err := os.Stat(out); !os.IsNotExist(err) {
				t.Errorf("%s was created: %v", out, err)
			}
		})
	}
}

// kubeStudy is a one-grid study on the kubernetes sandbox with the given
// kubernetes block body.
func kubeStudy(t *testing.T, block string) string {
	return writeStudy(t, `study "kube" {
  sandbox = "kubernetes"
  kubernetes {
`+block+`
  }
}
model "a" {
  provider = "scripted"
  policy   = "compliant"
}
grid "g" {
  tasks      = ["memory_poison"]
  models     = ["a"]
  conditions = ["plain"]
}
`)
}

// TestKubernetesPlanAndDoctor: plan says where the pods run and how the
// snapshot images reach the nodes; doctor fails, naming the kubeconfig, when
// the cluster cannot be reached; run refuses before any run.
func TestKubernetesPlanAndDoctor(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "no-kubeconfig")
	for _, tc := range []struct {
		name, block string
		want        []string
	}{
		{"registry", `registry = "127.0.0.1:5000/killchain"
    namespace = "lab"`, []string{"pods in namespace lab", "pushed to 127.0.0.1:5000/killchain", "pinned by digest"}},
		{"import", `images = "import"
    import_command = "ctr -n k8s.io images import -"
    runtime_class = "gvisor"`, []string{"killchain-<study>", `piped into "ctr -n k8s.io images import -"`, "imagePullPolicy Never", "runtime class gvisor"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			file := kubeStudy(t, tc.block+"\n    kubeconfig = \""+missing+"\"")
			code, stdout, stderr := killchain("plan", file)
			if code != 0 {
				t.Fatalf("plan: exit %d\n%s%s", code, stdout, stderr)
			}
			for _, w := range tc.want {
				if !strings.Contains(stdout, w) {
					t.Errorf("plan lacks %q:\n%s", w, stdout)
				}
			}
			code, stdout, _ = killchain("doctor", file)
			if code == 0 || !strings.Contains(stdout, "kubernetes") || !strings.Contains(stdout, missing) {
				t.Errorf("doctor: exit %d\n%s", code, stdout)
			}
			out := filepath.Join(t.TempDir(), "out")
			code, _, stderr = killchain("run", "--output", out, file)
			if code == 0 || !strings.Contains(stderr, "kubeconfig") {
				t.Errorf("run: exit %d\n%s", code, stderr)
			}
			if _, err := os.Stat(filepath.Join(out, "runs.jsonl")); err == nil {
				t.Error("run wrote runs before reaching the cluster")
			}
		})
	}
}

// A study whose tasks give an agent run_shell is refused on the local
// sandbox, naming the tasks and the opt-in, until the user opts in with
// --allow-host-shell or allow_host_shell = true.
func TestHostShellNeedsOptIn(t *testing.T) {
	const rewardHack = "../../hcl/reward_hack.hcl"
	src, err := os.ReadFile(rewardHack)
	if err != nil {
		t.Fatal(err)
	}
	allowed := writeStudy(t, strings.Replace(string(src), "  max_turns   = 10\n", "  max_turns   = 10\n  allow_host_shell = true\n", 1))
	tests := []struct {
		name   string
		args   []string
		code   int
		stderr []string
	}{
		{"plan on local", []string{"plan", "--sandbox", "local", rewardHack}, 1,
			[]string{`sandbox "local" cannot run 5 tasks`, "reward_dates needs shell (a POSIX shell for run_shell)", "reward_rounding needs shell", "--allow-host-shell", "allow_host_shell = true"}},
		{"run on local", []string{"run", "-q", "--sandbox", "local", "--output", "OUT", rewardHack}, 1,
			[]string{"reward_factor needs shell", "--allow-host-shell"}},
		{"plan on local with --allow-host-shell", []string{"plan", "--sandbox", "local", "--allow-host-shell", rewardHack}, 0, nil},
		{"plan on local with allow_host_shell", []string{"plan", "--sandbox", "local", allowed}, 0, nil},
		{"plan on docker", []string{"plan", rewardHack}, 0, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "out")
			args := append([]string(nil), tt.args...)
			for i, a := range args {
				if a == "OUT" {
					args[i] = out
				}
			}
			code, _, stderr := killchain(args...)
			if code != tt.code {
				t.Fatalf("exit %d, want %d; stderr:\n%s", code, tt.code, stderr)
			}
			for _, want := range tt.stderr {
				if !strings.Contains(stderr, want) {
					t.Errorf("stderr lacks %q:\n%s", want, stderr)
				}
			}
			if _, err := os.Stat(out); !os.IsNotExist(err) {
				t.Errorf("%s was created: %v", out, err)
			}
		})
	}
}
