package docker

import (
	"context"
	"testing"

	"github.com/killchain/killchain/images"
	"github.com/killchain/killchain/internal/sandboxtest"
	"github.com/killchain/killchain/sandbox"
)

// TestAttacksFromInside replays the attacks of issue 18 from run_shell
// inside hardened containers of the Debian image (internal/sandboxtest):
// the stream stays the toolbox's, no process outlives its call, and what
// the commands leave in the files the tools read stays an outcome.
func TestAttacksFromInside(t *testing.T) {
	b := newBackend(t, Options{PidsLimit: 64, ShellImage: images.Debian,
		Audio: &Audio{Image: images.Debian, Synthesize: images.AudioSynthArgv, Transcribe: images.AudioASRArgv}})
	study := uniqueStudy(t)
	open := func(t *testing.T, env sandbox.Env) sandbox.Sandbox {
		t.Helper()
		env.Study = study
		ctx := context.Background()
		sb, err := b.Open(ctx, env)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { sb.Close(ctx) })
		return sb
	}
	t.Run("stream", func(t *testing.T) { sandboxtest.StreamAttacks(t, open) })
	t.Run("processes", func(t *testing.T) { sandboxtest.ProcessAttacks(t, open, 400) })
	t.Run("files", func(t *testing.T) {
		sandboxtest.FileAttacks(t, open, sandboxtest.FileWant{Transcribe: true, Snapshot: true})
	})
}
