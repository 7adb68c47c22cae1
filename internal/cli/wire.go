package cli

import (
	"context"
	"fmt"

	"github.com/hashicorp/go-hclog"

	"github.com/killchain/killchain/images"
	"github.com/killchain/killchain/internal/study"
	"github.com/killchain/killchain/runner"
	"github.com/killchain/killchain/sandbox"
	"github.com/killchain/killchain/sandbox/admit"
	"github.com/killchain/killchain/sandbox/docker"
	"github.com/killchain/killchain/sandbox/local"
)

// openBackend opens the study's sandbox backend; the map goes into manifest.json.
func openBackend(ctx context.Context, s *study.Study, g *globals, log hclog.Logger) (sandbox.Backend, map[string]any, func(), error) {
	switch s.Sandbox {
	case "local":
		fmt.Fprintln(g.stderr, "killchain: sandbox \"local\": tools run in-process over a temporary folder, with no isolation from this machine (run_shell commands run on this host); audio transcription is not available")
		be := newLocal()
		be.Limiter = admit.New(s.HeavyConcurrency, log)
		return be, map[string]any{"sandbox": "local", "heavy_slots": be.Limiter.Slots()}, func() {}, nil
	case "docker", "":
		opts := dockerOptions(s)
		opts.Logger = log
		opts.Progress = g.stderr
		be, err := docker.New(ctx, opts)
		if err != nil {
			return nil, nil, nil, fmt.Errorf("docker sandbox: %w\n  is the Docker daemon running and reachable (DOCKER_HOST)? Without Docker, run with --sandbox local (no isolation, no audio)", err)
		}
		extra := map[string]any{"sandbox": "docker", "toolbox_image": be.Toolbox(), "heavy_slots": be.HeavySlots()}
		closeFn := func() {
			cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), opts.CleanupTimeout)
			defer cancel()
			_ = be.Close(cctx)
		}
		return be, extra, closeFn, nil
	case "kubernetes":
		return openKube(ctx, s, g, log)
	}
	return nil, nil, nil, unknownSandbox(s.Sandbox)
}

func unknownSandbox(name string) error {
	return fmt.Errorf("unknown sandbox %q (want docker, local or kubernetes)", name)
}

// newLocal is the local backend the CLI opens: no speech synthesizer or
// transcriber, so no audio.
func newLocal() *local.Backend { return &local.Backend{} }

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
	opts.Fixtures = s.Tasks.Fixtures
	opts.Audio = audioConfig()
	opts.ShellImage = images.Debian
	return opts
}

// checkBackend refuses a plan whose tasks need what the study's backend
// cannot do (runner.CheckCapabilities), from the options openBackend would
// use, so plan and run refuse before Docker is reached or anything written.
func checkBackend(s *study.Study, plan []study.Run) error {
	var (
		name = s.Sandbox
		have []sandbox.Capability
	)
	switch s.Sandbox {
	case "local":
		have = newLocal().Capabilities()
	case "docker", "":
		name, have = "docker", dockerOptions(s).Capabilities()
	case "kubernetes":
		// Pods run the images Docker builds: the same capabilities.
		have = dockerOptions(s).Capabilities()
	default:
		return unknownSandbox(s.Sandbox)
	}
	return runner.CheckCapabilities(name, have, plan, s.Tasks)
}
