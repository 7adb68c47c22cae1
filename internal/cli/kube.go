package cli

import (
	"context"
	"fmt"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/spf13/cobra"

	"github.com/killchain/killchain/internal/study"
	"github.com/killchain/killchain/sandbox/docker"
	"github.com/killchain/killchain/sandbox/kubernetes"
)

// kubeOptions are the Kubernetes backend's options for a study, before the
// Docker backend and the logger are added: the study's kubernetes block and
// the per-sandbox limits it shares with Docker.
func kubeOptions(s *study.Study) kubernetes.Options {
	d := dockerOptions(s)
	k := s.Kubernetes
	return kubernetes.Options{
		Kubeconfig:       k.Kubeconfig,
		Context:          k.Context,
		Namespace:        k.Namespace,
		Images:           k.Images,
		Registry:         k.Registry,
		ImportCommand:    k.ImportCommand,
		RuntimeClass:     k.RuntimeClass,
		ScheduleTimeout:  k.ScheduleTimeout,
		CPURequest:       k.CPURequest,
		MemoryMB:         d.MemoryMB,
		CPUs:             d.CPUs,
		StateMB:          d.StateMB,
		Concurrency:      s.Concurrency,
		HeavyConcurrency: s.HeavyConcurrency,
	}
}

// openKube opens the Kubernetes backend of a study, with the Docker backend
// that builds its snapshot images; the returned function closes both.
func openKube(ctx context.Context, s *study.Study, g *globals, log hclog.Logger) (*kubernetes.Backend, map[string]any, func(), error) {
	// The cluster first: a study that cannot reach it builds no image.
	if ok, detail := checkKube(ctx, s); !ok {
		return nil, nil, nil, fmt.Errorf("kubernetes sandbox: %s", detail)
	}
	dopts := dockerOptions(s)
	dopts.Logger, dopts.Progress = log, g.stderr
	db, err := docker.New(ctx, dopts)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("kubernetes sandbox: snapshot images are built with Docker: %w\n  is the Docker daemon running and reachable (DOCKER_HOST)?", err)
	}
	kopts := kubeOptions(s)
	kopts.Docker, kopts.Logger = db, log
	kb, err := kubernetes.New(ctx, kopts)
	if err != nil {
		db.Close(context.WithoutCancel(ctx))
		return nil, nil, nil, fmt.Errorf("%w\n  the cluster comes from the study's kubernetes block (kubeconfig, context), else KUBECONFIG, ~/.kube/config or the in-cluster configuration; killchain doctor FILE checks it", err)
	}
	extra := map[string]any{
		"sandbox":       "kubernetes",
		"server":        kb.Host(),
		"namespace":     kb.Namespace(s.Name),
		"images":        imageTransfer(s),
		"runtime_class": s.Kubernetes.RuntimeClass,
		"toolbox_image": db.Toolbox(),
		"heavy_slots":   db.HeavySlots(),
	}
	closeFn := func() {
		cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), dopts.CleanupTimeout)
		defer cancel()
		_ = kb.Close(cctx)
		_ = db.Close(cctx)
	}
	return kb, extra, closeFn, nil
}

// imageTransfer says how a study's snapshot images reach the cluster's nodes.
func imageTransfer(s *study.Study) string {
	k := s.Kubernetes
	if k.Images == kubernetes.ImagesImport {
		return fmt.Sprintf("each task's snapshot image is saved and piped into %q on this machine, which loads it into the nodes; pods never pull it (imagePullPolicy Never)", k.ImportCommand)
	}
	if k.Registry == "" {
		return "each task's snapshot image is pushed to the registry, which the study's kubernetes block must name (registry = \"host:port/prefix\")"
	}
	return fmt.Sprintf("each task's snapshot image is pushed to %s by the Docker daemon and pods pull it pinned by digest", k.Registry)
}

// kubePlanLine is what plan prints about a kubernetes study's sandbox.
func kubePlanLine(s *study.Study) string {
	ns := s.Kubernetes.Namespace
	if ns == "" {
		ns = "killchain-<study> (one per study)"
	}
	line := fmt.Sprintf("sandbox kubernetes: pods in namespace %s; %s", ns, imageTransfer(s))
	if rc := s.Kubernetes.RuntimeClass; rc != "" {
		line += "; runtime class " + rc
	}
	return line
}

// checkKube is doctor's cluster check: whether the API server answers, as
// whom it is configured, and how images will reach the nodes.
func checkKube(ctx context.Context, s *study.Study) (bool, string) {
	cfg, from, err := kubernetes.LoadConfig(s.Kubernetes.Kubeconfig, s.Kubernetes.Context)
	if err != nil {
		return false, err.Error() + " — set KUBECONFIG or the study's kubernetes { kubeconfig = … }"
	}
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	v, err := kubernetes.ServerVersion(ctx, cfg)
	if err != nil {
		return false, fmt.Sprintf("%s (%s) does not answer: %v", cfg.Host, from, err)
	}
	return true, fmt.Sprintf("%s %s (%s); %s", cfg.Host, v, from, imageTransfer(s))
}

// kubeFlags are the cluster flags of sandbox gc and bench sandbox.
type kubeFlags struct {
	on            bool
	kubeconfig    string
	context       string
	namespace     string
	registry      string
	importCommand string
	runtimeClass  string
}

func (k *kubeFlags) register(cmd *cobra.Command, images bool) {
	if !images {
		cmd.Flags().BoolVar(&k.on, "kubernetes", false, "also clean the cluster (KUBECONFIG, ~/.kube/config or in-cluster)")
	}
	cmd.Flags().StringVar(&k.kubeconfig, "kubeconfig", "", "kubeconfig file (default: KUBECONFIG, then ~/.kube/config)")
	cmd.Flags().StringVar(&k.context, "context", "", "kubeconfig context (default: the current one)")
	cmd.Flags().StringVar(&k.namespace, "namespace", "", "namespace of the pods (default: one per study, killchain-<study>)")
	if images {
		cmd.Flags().StringVar(&k.registry, "registry", "", "registry prefix snapshot images are pushed to (host:port/prefix)")
		cmd.Flags().StringVar(&k.importCommand, "import-command", "", "command that loads an image archive on stdin into the nodes, instead of a registry")
		cmd.Flags().StringVar(&k.runtimeClass, "runtime-class", "", "RuntimeClass of the pods (e.g. gvisor)")
	}
}

func (k *kubeFlags) wanted() bool { return k.on || k.kubeconfig != "" || k.context != "" }

func (k *kubeFlags) gc(ctx context.Context, studyName string) (kubernetes.GCReport, error) {
	cs, err := kubernetes.Connect(k.kubeconfig, k.context)
	if err != nil {
		return kubernetes.GCReport{}, fmt.Errorf("kubernetes: %w", err)
	}
	var opts []kubernetes.GCOption
	if studyName != "" {
		opts = append(opts, kubernetes.GCStudy(studyName))
	}
	if k.namespace != "" {
		opts = append(opts, kubernetes.GCNamespace(k.namespace))
	}
	return kubernetes.GC(ctx, cs, opts...)
}

func (k *kubeFlags) bench(ctx context.Context, g *globals, runs int) (kubernetes.BenchResult, error) {
	dopts := docker.DefaultOptions()
	dopts.Logger = g.logger()
	db, err := docker.New(ctx, dopts)
	if err != nil {
		return kubernetes.BenchResult{}, err
	}
	defer db.Close(context.WithoutCancel(ctx))
	opts := kubernetes.Options{
		Kubeconfig: k.kubeconfig, Context: k.context, Namespace: k.namespace,
		Images: kubernetes.ImagesRegistry, Registry: k.registry, RuntimeClass: k.runtimeClass,
		Docker: db, Logger: g.logger(),
	}
	if k.importCommand != "" {
		opts.Images, opts.ImportCommand = kubernetes.ImagesImport, k.importCommand
	}
	return kubernetes.Bench(ctx, kubernetes.BenchOptions{Runs: runs, Options: opts})
}
