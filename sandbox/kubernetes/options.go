package kubernetes

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/moby/moby/client"
	"k8s.io/client-go/rest"

	"github.com/killchain/killchain/sandbox"
	"github.com/killchain/killchain/sandbox/warm"
)

// How snapshot images reach the cluster's nodes.
const (
	// ImagesRegistry pushes each snapshot image to Options.Registry and
	// starts pods from it by digest.
	ImagesRegistry = "registry"
	// ImagesImport pipes each snapshot image (a docker save archive) into
	// Options.ImportCommand, which loads it into the nodes' container
	// runtime; pods start from it by tag and never pull. For air-gapped
	// clusters.
	ImagesImport = "import"
)

// Options configure the backend: the options it shares with the Docker
// backend (warm.Options: each pod's memory limit and request, CPU limit
// and /work size, timeouts, heavy requests' admission, the logger, which it
// logs under "kubernetes", and the warm pool of running, unplanted pods
// with the toolbox exec'd in each), then its own. Warm pods count against
// the namespace's quota: over every task, at most MaxPods - Concurrency
// stand ready (a task short of warm pods takes the place of another's).
// Zero fields take the defaults of DefaultOptions.
type Options struct {
	warm.Options
	// Kubeconfig is the kubeconfig file; "" takes KUBECONFIG, then
	// ~/.kube/config, then the in-cluster configuration.
	Kubeconfig string
	// Context is the kubeconfig context; "" takes the current one.
	Context string
	// Namespace is where the study's pods run; "" gives each study its own,
	// killchain-<study>. The backend creates it when missing, labelled, at
	// the restricted Pod Security level, with a ResourceQuota and a
	// default-deny NetworkPolicy.
	Namespace string
	// Images is how snapshot images reach the nodes: ImagesRegistry or
	// ImagesImport.
	Images string
	// Registry is the repository prefix snapshot images are pushed to, e.g.
	// "registry.example.org:5000/killchain" (ImagesRegistry).
	Registry string
	// ImportCommand is a shell command that reads an image archive on
	// stdin and loads it into every node (ImagesImport), e.g.
	// "ctr -n k8s.io images import -" on a one-node cluster.
	ImportCommand string
	// RuntimeClass is the pods' RuntimeClass (e.g. "gvisor"); "" for the
	// cluster's default runtime.
	RuntimeClass string
	// CPURequest is the CPU each pod requests from the scheduler (cores).
	CPURequest float64
	// MaxPods caps the pods of the namespace's ResourceQuota; 0: four per
	// run in flight (Concurrency), at least 16.
	MaxPods int
	// Concurrency is how many runs the study keeps in flight: the cap on
	// pods in flight, which the study's runner enforces.
	Concurrency int
	// ScheduleTimeout bounds how long a pod may stay Pending, waiting for
	// the scheduler or the namespace's quota, before the run is a sandbox
	// error (unschedulable).
	ScheduleTimeout time.Duration
	// StartTimeout bounds image pull and container start once placed.
	StartTimeout time.Duration
	// Docker builds the tasks' snapshot images (and pushes or exports
	// them): the Docker backend; required.
	Docker ImageBuilder
	// Config, when set, is used instead of loading a kubeconfig.
	Config *rest.Config

	// allowProbe starts the toolbox with -allow-probe (tests only).
	allowProbe bool
}

// ImageBuilder is what the backend needs of the Docker backend
// (*docker.Backend) that builds the tasks' snapshot images.
type ImageBuilder interface {
	// Prepare builds the task's snapshot once and returns what a run's pod
	// starts from and what the run plants in it.
	Prepare(ctx context.Context, env sandbox.Env) (warm.Prepared, error)
	// Client is the Docker client that tags, pushes and saves snapshots.
	Client() *client.Client
	// Capabilities says what the images can do; the pods run them, so it
	// is the backend's too.
	sandbox.Capable
	// Snapshots returns the snapshot image ID of every task prepared so far.
	Snapshots() map[string]string
}

// DefaultOptions are the limits a study gets unless it sets its own: the
// shared ones (warm.DefaultOptions, as on Docker), and ten minutes for the
// scheduler.
func DefaultOptions() Options {
	return Options{
		Options:         warm.DefaultOptions(),
		Images:          ImagesRegistry,
		CPURequest:      0.1,
		Concurrency:     8,
		ScheduleTimeout: 10 * time.Minute,
		StartTimeout:    5 * time.Minute,
	}
}

func (o Options) withDefaults() Options {
	d := DefaultOptions()
	o.Options = warm.WithDefaults(o.Options)
	o.Images = cmp.Or(o.Images, d.Images)
	o.CPURequest = cmp.Or(o.CPURequest, min(d.CPURequest, o.CPUs))
	o.Concurrency = cmp.Or(o.Concurrency, d.Concurrency)
	o.MaxPods = cmp.Or(o.MaxPods, max(16, 4*o.Concurrency))
	o.ScheduleTimeout = cmp.Or(o.ScheduleTimeout, d.ScheduleTimeout)
	o.StartTimeout = cmp.Or(o.StartTimeout, d.StartTimeout)
	return o
}

// Validate returns every problem with the options.
func (o Options) Validate() []error {
	errs := o.Options.Validate()
	switch o.Images {
	case ImagesRegistry:
		if o.Registry == "" {
			errs = append(errs, errors.New(`images = "registry" needs a registry to push snapshot images to (kubernetes { registry = "host:port/prefix" })`))
		}
	case ImagesImport:
		if o.ImportCommand == "" {
			errs = append(errs, errors.New(`images = "import" needs an import_command that loads an image archive from stdin into the nodes`))
		}
	default:
		errs = append(errs, fmt.Errorf(`images must be "registry" or "import", got %q`, o.Images))
	}
	if o.CPURequest <= 0 || o.CPURequest > o.CPUs {
		errs = append(errs, fmt.Errorf("cpus (%g) and the CPU request (%g) must be positive, the request no more than cpus", o.CPUs, o.CPURequest))
	}
	if o.Namespace != "" && !validLabel(o.Namespace) {
		errs = append(errs, fmt.Errorf("namespace %q is not a valid namespace name", o.Namespace))
	}
	if o.Docker == nil {
		errs = append(errs, errors.New("a Docker backend is needed to build snapshot images"))
	}
	return errs
}
