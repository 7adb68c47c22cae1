package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

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
