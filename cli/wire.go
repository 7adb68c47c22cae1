package cli

import (
	"context"
	"fmt"

	"github.com/hashicorp/go-hclog"

	"github.com/killchain/killchain/sandbox"
	"github.com/killchain/killchain/sandbox/docker"
	"github.com/killchain/killchain/sandbox/local"
	"github.com/killchain/killchain/study"
	"github.com/killchain/killchain/tasks"
)

// openBackend opens the study's sandbox backend; the map goes into manifest.json.
func openBackend(ctx context.Context, s *study.Study, g *globals, log hclog.Logger) (sandbox.Backend, map[string]any, func(), error) {
	switch s.Sandbox {
	case "local":
		fmt.Fprintln(g.stderr, "killchain: sandbox \"local\": tools run in-process over a temporary folder, with no isolation from this machine; audio transcription is not available")
		return &local.Backend{}, map[string]any{"sandbox": "local"}, func() {}, nil
	case "docker", "":
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
		opts.Fixtures = tasks.Fixtures
		opts.Audio = audioConfig()
		opts.Logger = log
		opts.Progress = g.stderr
		be, err := docker.New(ctx, opts)
		if err != nil {
			return nil, nil, nil, fmt.Errorf("docker sandbox: %w\n  is the Docker daemon running and reachable (DOCKER_HOST)? Without Docker, run with --sandbox local (no isolation, no audio)", err)
		}
		extra := map[string]any{"sandbox": "docker", "toolbox_image": be.Toolbox()}
		closeFn := func() {
			cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), opts.CleanupTimeout)
			defer cancel()
			_ = be.Close(cctx)
		}
		return be, extra, closeFn, nil
	}
	return nil, nil, nil, fmt.Errorf("unknown sandbox %q (want docker or local)", s.Sandbox)
}
