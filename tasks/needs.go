package tasks

import (
	"slices"

	"github.com/killchain/killchain/internal/tools"
	"github.com/killchain/killchain/sandbox"
)

// toolNeeds maps the tools a backend may lack to the capability they need.
var toolNeeds = map[string]sandbox.Capability{
	tools.TranscribeAudio: sandbox.Audio,
	tools.RunShell:        sandbox.Shell,
}

// Needs returns the sandbox capabilities a task's runs need, derived from
// its definition: a role offered transcribe_audio, or an audio clip in its
// environment, needs audio; run_shell or a workspace needs a shell. A
// backend that lacks one cannot run the task (see sandbox.Capable).
func (t *Task) Needs() []sandbox.Capability {
	var need []sandbox.Capability
	add := func(c sandbox.Capability) {
		if !slices.Contains(need, c) {
			need = append(need, c)
		}
	}
	for _, r := range t.Roles {
		for _, tool := range r.Tools {
			if c, ok := toolNeeds[tool]; ok {
				add(c)
			}
		}
	}
	if len(t.Clips) > 0 {
		add(sandbox.Audio)
	}
	if t.Reward != nil {
		add(sandbox.Shell)
	}
	return need
}
