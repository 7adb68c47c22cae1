package cli

import (
	"context"
	"fmt"

	"github.com/hashicorp/go-hclog"

	"github.com/killchain/killchain/agent"
	"github.com/killchain/killchain/models/scripted"
	"github.com/killchain/killchain/runner"
	"github.com/killchain/killchain/sandbox"
	"github.com/killchain/killchain/sandbox/local"
	"github.com/killchain/killchain/study"
)

// modelFactory builds models from study blocks: scripted reference agents
// here, live providers through their drivers.
func modelFactory(log hclog.Logger) runner.ModelFactory {
	return func(m *study.Model) (agent.Model, error) {
		if m.Provider == study.ProviderScripted {
			return scripted.New(m.Policy)
		}
		return nil, fmt.Errorf("provider %q is not wired yet", m.Provider)
	}
}

// openBackend opens the study's sandbox backend.
func openBackend(ctx context.Context, s *study.Study, g *globals, log hclog.Logger) (sandbox.Backend, map[string]any, func(), error) {
	switch s.Sandbox {
	case "local":
		fmt.Fprintln(g.stderr, "killchain: sandbox \"local\": tools run in-process over a temporary folder, with no isolation from this machine; audio transcription is not available")
		return &local.Backend{}, nil, func() {}, nil
	}
	return nil, nil, nil, fmt.Errorf("sandbox %q is not available", s.Sandbox)
}
