package docker

import (
	"testing"

	"github.com/killchain/killchain/images"
	"github.com/killchain/killchain/internal/sandboxtest"
)

// TestAttacksFromInside replays the attacks of issue 18 from run_shell
// inside hardened containers of the Debian image (internal/sandboxtest):
// the stream stays the toolbox's, no process outlives its call, and what
// the commands leave in the files the tools read stays an outcome.
func TestAttacksFromInside(t *testing.T) {
	b := newBackend(t, Options{PidsLimit: 64, ShellImage: images.Debian,
		Audio: &Audio{Image: images.Debian, Synthesize: images.AudioSynthArgv, Transcribe: images.AudioASRArgv}})
	open := sandboxtest.OpenerOf(b, uniqueStudy(t))
	t.Run("stream", func(t *testing.T) { sandboxtest.StreamAttacks(t, open) })
	t.Run("processes", func(t *testing.T) { sandboxtest.ProcessAttacks(t, open, 400) })
	t.Run("files", func(t *testing.T) {
		sandboxtest.FileAttacks(t, open, sandboxtest.FileWant{Transcribe: true, Snapshot: true})
	})
}
