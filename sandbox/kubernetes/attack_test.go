package kubernetes

import (
	"context"
	"testing"

	"github.com/killchain/killchain/images"
	"github.com/killchain/killchain/internal/sandboxtest"
	"github.com/killchain/killchain/sandbox/docker"
	"github.com/killchain/killchain/sandbox/docker/dockertest"
)

// TestAttacksFromInside replays the attacks of issue 18 from run_shell in
// pods of the Debian image, as Docker's containers replay them
// (internal/sandboxtest). In a pod the toolbox is not the container's init
// but a process exec'd beside it ($PPID of a command), and the same checks
// hold.
func TestAttacksFromInside(t *testing.T) {
	dopts := docker.DefaultOptions()
	dopts.Client = dockertest.Require(t)
	dopts.Logger = testLogger()
	dopts.ShellImage = images.Debian
	dopts.Audio = &docker.Audio{Image: images.Debian, Synthesize: images.AudioSynthArgv, Transcribe: images.AudioASRArgv}
	ctx := context.Background()
	d, err := docker.New(ctx, dopts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close(context.Background()) })
	b := newBackend(t, Options{Docker: d})
	open := sandboxtest.OpenerOf(b, uniqueStudy(t, b))
	t.Run("stream", func(t *testing.T) { sandboxtest.StreamAttacks(t, open) })
	t.Run("processes", func(t *testing.T) { sandboxtest.ProcessAttacks(t, open, 400) })
	t.Run("files", func(t *testing.T) {
		sandboxtest.FileAttacks(t, open, sandboxtest.FileWant{Transcribe: true, Snapshot: true})
	})
}
