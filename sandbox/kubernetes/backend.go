// Package kubernetes is the sandbox backend for clusters: every run is one
// hardened Pod started from its task's snapshot image, and the toolbox
// speaks the same protocol as in Docker over the pod's exec stream.
//
// Lifecycle of a run (Open → Call… → State → Close):
//
//  1. The task's snapshot image is built once by the Docker backend, then
//     pushed to the study's registry and pinned by digest, or imported into
//     the nodes by the study's import command (images.go).
//  2. The study's namespace is made ready once: labelled, restricted Pod
//     Security, a ResourceQuota and a default-deny NetworkPolicy.
//  3. A Pod is created (non-root, no capabilities, no privilege gain,
//     read-only root, seccomp RuntimeDefault, an in-memory /work, limits, no
//     service-account token, no service links) and waited for: a Pending
//     pod is waited for until ScheduleTimeout, never counted as a failed
//     run before that; a pod that cannot pull, start or stay alive is a
//     sandbox error with its fault (sandbox.Fault).
//  4. "/toolbox serve" is exec'd in it; stdin, stdout and stderr are
//     separate streams, so responses need no demultiplexing.
//  5. Close ends the exec and deletes the pod on a cleanup context.
//
// With a warm pool (Options.WarmPool), steps 3 and 4 happen ahead of the
// run: a bounded set of pods per study and snapshot stands running with the
// toolbox exec'd and nothing of any run in them, and a run takes one that
// nobody else ever gets (pool.go).
package kubernetes

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/hashicorp/go-hclog"
	"golang.org/x/sync/singleflight"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/killchain/killchain/sandbox"
	"github.com/killchain/killchain/sandbox/admit"
	"github.com/killchain/killchain/sandbox/warm"
)

// Backend opens pods.
type Backend struct {
	opts  Options
	cfg   *rest.Config
	cs    kubernetes.Interface
	log   hclog.Logger
	limit *admit.Limiter

	nsReady singleflight.Group
	images  singleflight.Group

	mu     sync.Mutex
	ready  map[string]bool   // namespaces made ready
	pushed map[string]string // snapshot image ID → pod image reference
	live   sandbox.Live[*Sandbox]

	pool *warm.Pool[*Sandbox] // nil without a warm pool
}

var (
	_ sandbox.Backend = (*Backend)(nil)
	_ sandbox.Capable = (*Backend)(nil)
)

// LoadConfig reads the cluster's client configuration: the kubeconfig
// file given (or KUBECONFIG, then ~/.kube/config), its context, or the
// in-cluster configuration when no kubeconfig is found. It also says where
// the configuration came from, for messages.
func LoadConfig(kubeconfig, context string) (*rest.Config, string, error) {
	if rest, ok := strings.CutPrefix(kubeconfig, "~/"); ok {
		if home, err := os.UserHomeDir(); err == nil {
			kubeconfig = filepath.Join(home, rest)
		}
	}
	rules := clientcmd.NewDefaultClientConfigLoadingRules()
	rules.ExplicitPath = kubeconfig
	cc := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(rules, &clientcmd.ConfigOverrides{CurrentContext: context})
	cfg, err := cc.ClientConfig()
	if err != nil {
		return nil, "", fmt.Errorf("load kubeconfig: %w", err)
	}
	from := "in-cluster configuration"
	if raw, err := cc.RawConfig(); err == nil && raw.CurrentContext != "" {
		from = "kubeconfig context " + raw.CurrentContext
		if context != "" {
			from = "kubeconfig context " + context
		}
	}
	return cfg, from, nil
}

// New connects to the cluster and returns a backend. Zero fields of opts
// take their defaults.
func New(ctx context.Context, opts Options) (*Backend, error) {
	opts = opts.withDefaults()
	if errs := opts.Validate(); len(errs) > 0 {
		return nil, fmt.Errorf("kubernetes sandbox: %w", errors.Join(errs...))
	}
	cfg := opts.Config
	if cfg == nil {
		var err error
		if cfg, _, err = LoadConfig(opts.Kubeconfig, opts.Context); err != nil {
			return nil, fmt.Errorf("kubernetes sandbox: %w", err)
		}
	}
	cfg = rest.CopyConfig(cfg)
	// Each run makes a handful of calls; keep client-side throttling out of
	// the way of the study's own concurrency.
	cfg.QPS, cfg.Burst = float32(max(50, 10*opts.Concurrency)), max(100, 20*opts.Concurrency)
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return nil, fmt.Errorf("kubernetes sandbox: client: %w", err)
	}
	b := &Backend{
		opts:   opts,
		cfg:    cfg,
		cs:     cs,
		log:    opts.Logger.Named("kubernetes"),
		limit:  opts.Limiter,
		ready:  map[string]bool{},
		pushed: map[string]string{},
	}
	if b.limit == nil {
		b.limit = admit.New(opts.HeavyConcurrency, b.log)
	}
	// Warm pods count against the namespace's quota: the runs in flight
	// keep their share, and the pool has what is left over every task.
	if spare := opts.MaxPods - opts.Concurrency; opts.WarmPool > 0 && spare > 0 {
		b.pool = warm.New(opts.WarmPool, func(ctx context.Context, s *Sandbox) error { return s.Close(ctx) }, b.log.Named("pool")).Limit(spare)
	}
	routeClientLogs(b.log)
	v, err := cs.Discovery().ServerVersion()
	if err != nil {
		return nil, fmt.Errorf("kubernetes sandbox: cluster at %s is not reachable: %w", cfg.Host, err)
	}
	b.log.Debug("backend ready", "server", cfg.Host, "version", v.GitVersion, "images", opts.Images, "runtime_class", opts.RuntimeClass)
	return b, nil
}

// Name returns "kubernetes".
func (b *Backend) Name() string { return "kubernetes" }

// Capabilities are those of the Docker backend that builds the images.
func (b *Backend) Capabilities() []sandbox.Capability { return b.opts.Docker.Capabilities() }

// Client returns the backend's Kubernetes client.
func (b *Backend) Client() kubernetes.Interface { return b.cs }

// RESTConfig returns a copy of the client configuration the backend speaks
// to the cluster with.
func (b *Backend) RESTConfig() *rest.Config { return rest.CopyConfig(b.cfg) }

// Host is the API server's address.
func (b *Backend) Host() string { return b.cfg.Host }

// Namespace is the namespace a study's pods run in.
func (b *Backend) Namespace(study string) string {
	if b.opts.Namespace != "" {
		return b.opts.Namespace
	}
	return studyNamespace(study)
}

// Snapshots returns the snapshot image ID of every task opened so far.
func (b *Backend) Snapshots() map[string]string { return b.opts.Docker.Snapshots() }

// Open starts a run's pod from its task's snapshot and plants the run's
// environment.
func (b *Backend) Open(ctx context.Context, env sandbox.Env) (sandbox.Sandbox, error) {
	return b.open(ctx, env)
}

func (b *Backend) open(ctx context.Context, env sandbox.Env) (*Sandbox, error) {
	p, err := b.opts.Docker.Prepare(ctx, env)
	if err != nil {
		return nil, err
	}
	ns := b.Namespace(env.Study)
	if err := b.ensureNamespace(ctx, ns, env.Study); err != nil {
		return nil, fmt.Errorf("kubernetes sandbox %s: %w", env.Run, err)
	}
	image, err := b.PodImage(ctx, p)
	if err != nil {
		return nil, fmt.Errorf("kubernetes sandbox %s: %w", env.Run, err)
	}
	cmd := p.Command
	if b.opts.allowProbe {
		cmd = append(cmd[:len(cmd):len(cmd)], "-allow-probe")
	}
	var s *Sandbox
	if b.pool != nil {
		s, err = b.takeWarm(ctx, ns, image, env, cmd)
	} else {
		s, err = b.start(ctx, ns, image, env, cmd)
	}
	if err != nil {
		return nil, fmt.Errorf("kubernetes sandbox %s: %w", env.Run, err)
	}
	var ok bool
	if err := s.Request(ctx, p.Request(), &ok); err != nil {
		s.Close(ctx)
		return nil, fmt.Errorf("kubernetes sandbox %s: prepare: %w", env.Run, err)
	}
	return s, nil
}

func (b *Backend) track(s *Sandbox) { b.live.Add(s) }

func (b *Backend) forget(s *Sandbox) { b.live.Remove(s) }

// Close deletes every pod still open. Namespaces and pushed images are
// kept for later runs of the study (GC removes them).
func (b *Backend) Close(ctx context.Context) error {
	perr := b.pool.Close(ctx)
	return errors.Join(perr, b.live.CloseAll(ctx))
}

// cleanupCtx is a context apart from ctx (which may be cancelled) bounded
// by CleanupTimeout.
func (b *Backend) cleanupCtx(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.WithoutCancel(ctx), b.opts.CleanupTimeout)
}

// ServerVersion asks the API server at cfg for its version: whether the
// cluster answers with these credentials.
func ServerVersion(ctx context.Context, cfg *rest.Config) (string, error) {
	cs, err := kubernetes.NewForConfig(rest.CopyConfig(cfg))
	if err != nil {
		return "", err
	}
	v, err := cs.Discovery().RESTClient().Get().AbsPath("/version").Do(ctx).Raw()
	if err != nil {
		return "", err
	}
	var info struct {
		GitVersion string `json:"gitVersion"`
	}
	if err := json.Unmarshal(v, &info); err != nil {
		return "", fmt.Errorf("version: %w", err)
	}
	return info.GitVersion, nil
}

// Connect returns a client for the cluster LoadConfig finds.
func Connect(kubeconfig, context string) (kubernetes.Interface, error) {
	cfg, _, err := LoadConfig(kubeconfig, context)
	if err != nil {
		return nil, err
	}
	return kubernetes.NewForConfig(cfg)
}
