package study

import (
	"time"

	"github.com/hashicorp/hcl/v2/hclsyntax"

	"github.com/killchain/killchain/internal/hcldiag"
)

// Kubernetes is the study block's kubernetes { } block: where and how a
// study with sandbox = "kubernetes" runs its pods. Every field is optional;
// the zero value is the backend's default.
type Kubernetes struct {
	// Kubeconfig and Context pick the cluster; "" takes KUBECONFIG, then
	// ~/.kube/config and its current context, then the in-cluster config.
	Kubeconfig string
	Context    string
	// Namespace is where the pods run; "" gives the study its own,
	// killchain-<study>.
	Namespace string
	// Images is how snapshot images reach the nodes: "registry" (pushed to
	// Registry and pinned by digest) or "import" (piped into ImportCommand).
	Images        string
	Registry      string
	ImportCommand string
	// RuntimeClass is the pods' RuntimeClass, e.g. "gvisor".
	RuntimeClass string
	// ScheduleTimeout bounds how long a pod may wait for the scheduler.
	ScheduleTimeout time.Duration
	// CPURequest is the CPU each pod requests (cores); 0: a tenth of one.
	CPURequest float64
}

type rawKubernetes struct {
	Kubeconfig      *string  `hcl:"kubeconfig,optional"`
	Context         *string  `hcl:"context,optional"`
	Namespace       *string  `hcl:"namespace,optional"`
	Images          *string  `hcl:"images,optional"`
	Registry        *string  `hcl:"registry,optional"`
	ImportCommand   *string  `hcl:"import_command,optional"`
	RuntimeClass    *string  `hcl:"runtime_class,optional"`
	ScheduleTimeout *string  `hcl:"schedule_timeout,optional"`
	CPURequest      *float64 `hcl:"cpu_request,optional"`
}

// decodeKubernetes checks the study block's kubernetes block, if any.
func (d *decoder) decodeKubernetes(study *hcldiag.Block, raw *rawKubernetes) {
	if raw == nil {
		return
	}
	bc := &hcldiag.Block{Block: study.Block, Name: "kubernetes", Bad: map[string]bool{}}
	if body, ok := study.Block.Body.(*hclsyntax.Body); ok {
		for _, b := range body.Blocks {
			if b.Type == "kubernetes" {
				bc.Block, bc.Attrs = b.AsHCLBlock(), b.Body.Attributes
			}
		}
	}
	k := &d.study.Kubernetes
	k.Kubeconfig = deref(raw.Kubeconfig, "")
	k.Context = deref(raw.Context, "")
	k.Namespace = deref(raw.Namespace, "")
	k.Images = deref(raw.Images, "registry")
	k.Registry = deref(raw.Registry, "")
	k.ImportCommand = deref(raw.ImportCommand, "")
	k.RuntimeClass = deref(raw.RuntimeClass, "")
	k.CPURequest = deref(raw.CPURequest, 0)
	if d.oneOf(bc, "images", k.Images, []string{"registry", "import"}, "image transfer") {
		switch {
		case k.Images == "registry" && k.Registry == "" && d.study.Sandbox == "kubernetes":
			d.errorf(bc.Rng("registry"), "Missing registry",
				"images = \"registry\" pushes each task's snapshot image to a registry the cluster pulls from; set registry = \"host:port/prefix\", or use images = \"import\" with an import_command.")
		case k.Images == "import" && k.ImportCommand == "":
			d.errorf(bc.Rng("import_command"), "Missing import_command",
				"images = \"import\" needs an import_command: a shell command that reads an image archive (docker save) on stdin and loads it into every node, e.g. \"ctr -n k8s.io images import -\".")
		}
	}
	if bc.OK("namespace") && !dnsLabel(k.Namespace) {
		d.errorf(bc.Rng("namespace"), "Invalid namespace",
			"%q is not a Kubernetes namespace name: at most 63 lower-case letters, digits and '-', starting and ending with a letter or digit.", k.Namespace)
	}
	if bc.OK("cpu_request") && k.CPURequest <= 0 {
		d.errorf(bc.Rng("cpu_request"), "Invalid cpu_request", "cpu_request must be positive; got %g.", k.CPURequest)
	}
	if bc.OK("schedule_timeout") {
		dur, err := time.ParseDuration(*raw.ScheduleTimeout)
		if err != nil || dur <= 0 {
			d.errorf(bc.Rng("schedule_timeout"), "Invalid duration",
				"schedule_timeout must be a positive duration such as \"10m\"; %q is not one.", *raw.ScheduleTimeout)
		} else {
			k.ScheduleTimeout = dur
		}
	}
}

// dnsLabel reports whether s is a DNS label.
func dnsLabel(s string) bool {
	if s == "" || len(s) > 63 || s[0] == '-' || s[len(s)-1] == '-' {
		return false
	}
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-') {
			return false
		}
	}
	return true
}
