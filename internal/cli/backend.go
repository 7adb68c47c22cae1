package cli

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/spf13/cobra"

	"github.com/killchain/killchain/images"
	"github.com/killchain/killchain/internal/study"
	"github.com/killchain/killchain/runner"
	"github.com/killchain/killchain/sandbox"
	"github.com/killchain/killchain/sandbox/admit"
	"github.com/killchain/killchain/sandbox/docker"
	"github.com/killchain/killchain/sandbox/kubernetes"
	"github.com/killchain/killchain/sandbox/local"
)

// backendChoice is what a study's sandbox setting selects: the backend's
// name, what it can do, and how to open it. plan checks a study against
// it and run opens it, from the same choice.
type backendChoice struct {
	name string
	caps []sandbox.Capability
	open func(ctx context.Context, g *globals, log hclog.Logger) (*openedBackend, error)
}

// openedBackend is a backend ready for runs, with what manifest.json
// records of it and the function that closes it.
type openedBackend struct {
	sandbox.Backend
	manifest map[string]any
	close    func()
}

// chooseBackend is the one switch over a study's sandbox setting.
func chooseBackend(s *study.Study) (backendChoice, error) {
	switch s.Sandbox {
	case "local":
		return backendChoice{name: "local", caps: newLocal(s).Capabilities(), open: func(_ context.Context, g *globals, log hclog.Logger) (*openedBackend, error) {
			return openLocal(s, g, log), nil
		}}, nil
	case "docker", "":
		return backendChoice{name: "docker", caps: dockerOptions(s).Capabilities(), open: func(ctx context.Context, g *globals, log hclog.Logger) (*openedBackend, error) {
			return openDocker(ctx, s, g, log)
		}}, nil
	case "kubernetes":
		// Pods run the images Docker builds: the same capabilities.
		return backendChoice{name: "kubernetes", caps: dockerOptions(s).Capabilities(), open: func(ctx context.Context, g *globals, log hclog.Logger) (*openedBackend, error) {
			return openKube(ctx, s, g, log)
		}}, nil
	}
	return backendChoice{}, fmt.Errorf("unknown sandbox %q (want docker, local or kubernetes)", s.Sandbox)
}

// checkBackend refuses a plan whose tasks need what the study's backend
// cannot do (runner.CheckCapabilities), so that plan and run refuse before
// Docker is reached or anything written.
func checkBackend(s *study.Study, plan []study.Run) error {
	b, err := chooseBackend(s)
	if err != nil {
		return err
	}
	err = runner.CheckCapabilities(b.name, b.caps, plan, s.Tasks)
	if _, herr := local.HostShell(); err != nil && s.Sandbox == "local" && s.AllowHostShell && herr != nil {
		return fmt.Errorf("%w\n--allow-host-shell was given, but %v", err, herr)
	}
	return err
}

// newLocal is the local backend the CLI opens: no speech synthesizer or
// transcriber, so no audio, and run_shell only when the study allows it.
func newLocal(s *study.Study) *local.Backend {
	return &local.Backend{AllowHostShell: s.AllowHostShell}
}

// hostShellFlag is the opt-in, on plan and run, that lets the local
// sandbox run the agents' commands on this host (allow_host_shell).
const hostShellFlag = "allow-host-shell"

func addHostShellFlag(cmd *cobra.Command) {
	cmd.Flags().Bool(hostShellFlag, false, "let --sandbox local run run_shell: the agents' commands then run on this host (as nobody in a pid namespace of their own when killchain is root); the study attribute allow_host_shell = true does the same")
}

func openLocal(s *study.Study, g *globals, log hclog.Logger) *openedBackend {
	fmt.Fprintln(g.stderr, "killchain: sandbox \"local\": tools run in-process over a temporary folder, with no isolation from this machine; audio transcription is not available")
	if how, err := local.HostShell(); s.AllowHostShell && err == nil {
		fmt.Fprintf(g.stderr, "killchain: --allow-host-shell: run_shell runs the agents' commands on this host, %s, with an empty environment\n", how)
	}
	be := newLocal(s)
	be.Limiter = admit.New(s.HeavyConcurrency, log)
	return &openedBackend{Backend: be, manifest: map[string]any{"sandbox": "local", "heavy_slots": be.Limiter.Slots()}, close: func() {}}
}

// dockerOptions are the Docker backend's options for a study, before the
// logger and progress writer are added.
func dockerOptions(s *study.Study) docker.Options {
	opts := docker.DefaultOptions()
	if s.MemoryMB > 0 {
		opts.MemoryMB = int64(s.MemoryMB)
	}
	if s.CPUs > 0 {
		opts.CPUs = s.CPUs
	}
	if s.PidsLimit > 0 {
		opts.PidsLimit = int64(s.PidsLimit)
	}
	if s.Runtime != "" && s.Runtime != study.DefaultRuntime {
		opts.Runtime = s.Runtime
	}
	opts.HeavyConcurrency = s.HeavyConcurrency
	opts.WarmPool = s.WarmPoolSize()
	opts.Fixtures = s.Tasks.Fixtures
	// Speech clips are synthesized and transcribed inside the sandbox:
	// espeak-ng and pocketsphinx in the Debian-based image, driven by its
	// kcaudio helper.
	opts.Audio = &docker.Audio{Image: images.Debian, Synthesize: images.AudioSynthArgv, Transcribe: images.AudioASRArgv}
	opts.ShellImage = images.Debian
	return opts
}

func openDocker(ctx context.Context, s *study.Study, g *globals, log hclog.Logger) (*openedBackend, error) {
	opts := dockerOptions(s)
	opts.Logger, opts.Progress = log, g.stderr
	be, err := docker.New(ctx, opts)
	if err != nil {
		if errors.Is(err, docker.ErrUnreachable) {
			return nil, fmt.Errorf("%w\n  is the Docker daemon running and reachable (DOCKER_HOST)? Without Docker, run with --sandbox local (no isolation, no audio)", err)
		}
		return nil, err
	}
	return &openedBackend{
		Backend:  be,
		manifest: map[string]any{"sandbox": "docker", "toolbox_image": be.Toolbox(), "heavy_slots": be.HeavySlots(), "warm_pool": opts.WarmPool},
		close: func() {
			cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), opts.CleanupTimeout)
			defer cancel()
			if err := be.Close(cctx); err != nil {
				// Which containers are left, and why: never silently.
				fmt.Fprintf(g.stderr, "warning: %v\n", err)
			}
		},
	}, nil
}

// kubeOptions are the Kubernetes backend's options for a study, before the
// Docker backend and the logger are added: the study's kubernetes block and
// the options it shares with Docker (warm.Options).
func kubeOptions(s *study.Study) kubernetes.Options {
	d := dockerOptions(s)
	k := s.Kubernetes
	return kubernetes.Options{
		Options:         d.Options,
		Kubeconfig:      k.Kubeconfig,
		Context:         k.Context,
		Namespace:       k.Namespace,
		Images:          k.Images,
		Registry:        k.Registry,
		ImportCommand:   k.ImportCommand,
		RuntimeClass:    k.RuntimeClass,
		ScheduleTimeout: k.ScheduleTimeout,
		CPURequest:      k.CPURequest,
		Concurrency:     s.Concurrency,
	}
}

// openKube opens the Kubernetes backend of a study, with the Docker backend
// that builds its snapshot images; closing it closes both.
func openKube(ctx context.Context, s *study.Study, g *globals, log hclog.Logger) (*openedBackend, error) {
	// The cluster first: a study that cannot reach it builds no image.
	if ok, detail := checkKube(ctx, s); !ok {
		return nil, fmt.Errorf("kubernetes sandbox: %s", detail)
	}
	dopts := dockerOptions(s)
	dopts.Logger, dopts.Progress = log, g.stderr
	dopts.WarmPool = 0 // it builds images; the pods are the pool
	db, err := docker.New(ctx, dopts)
	if err != nil {
		if errors.Is(err, docker.ErrUnreachable) {
			return nil, fmt.Errorf("kubernetes sandbox: snapshot images are built with Docker: %w\n  is the Docker daemon running and reachable (DOCKER_HOST)?", err)
		}
		return nil, fmt.Errorf("kubernetes sandbox: snapshot images are built with Docker: %w", err)
	}
	kopts := kubeOptions(s)
	kopts.Docker, kopts.Logger = db, log
	kb, err := kubernetes.New(ctx, kopts)
	if err != nil {
		db.Close(context.WithoutCancel(ctx))
		return nil, fmt.Errorf("%w\n  the cluster comes from the study's kubernetes block (kubeconfig, context), else KUBECONFIG, ~/.kube/config or the in-cluster configuration; killchain doctor FILE checks it", err)
	}
	return &openedBackend{
		Backend: kb,
		manifest: map[string]any{
			"sandbox":       "kubernetes",
			"server":        kb.Host(),
			"namespace":     kb.Namespace(s.Name),
			"images":        imageTransfer(s),
			"runtime_class": s.Kubernetes.RuntimeClass,
			"toolbox_image": db.Toolbox(),
			"heavy_slots":   db.HeavySlots(),
			"warm_pool":     kopts.WarmPool,
		},
		close: func() {
			cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), dopts.CleanupTimeout)
			defer cancel()
			_ = kb.Close(cctx)
			_ = db.Close(cctx)
		},
	}, nil
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

// checkKube is the cluster check of doctor and of opening the backend:
// whether the API server answers, as whom it is configured, and how
// images will reach the nodes.
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
