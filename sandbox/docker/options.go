package docker

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/moby/moby/client"

	"github.com/killchain/killchain/sandbox/warm"
)

// Labels carried by everything the backend creates.
const (
	LabelStudy    = "killchain.study"
	LabelRun      = "killchain.run"
	LabelTask     = "killchain.task"
	LabelSnapshot = "killchain.snapshot" // on snapshot images: the content hash
)

// Options configure the backend: the options it shares with the
// Kubernetes backend (warm.Options: limits, timeouts, the warm pool, heavy
// requests' admission, the logger, which it logs under "docker"), then its
// own. Zero fields take the defaults of DefaultOptions.
type Options struct {
	warm.Options
	// PidsLimit bounds the processes (and threads) of each container.
	PidsLimit int64
	// Runtime is the OCI runtime: "" for the daemon's default, or "runsc"
	// for gVisor where installed.
	Runtime string
	// Fixtures returns a task's static files, identical across its runs
	// (pages, records, documents without any payload); they are committed
	// into the task's snapshot. Nil: snapshots hold an empty prepared state.
	// A run's own files always win: Open plants what differs from the
	// snapshot and removes what the run lacks.
	Fixtures func(ctx context.Context, task string) (map[string][]byte, error)
	// Audio is where runs with speech clips execute. Nil: such runs fail
	// with a sandbox error.
	Audio *Audio
	// ShellImage is the images registry name of the image runs with
	// run_shell (sandbox.Env.Shell) execute in: it must hold /bin/sh and the
	// toolbox at /toolbox, e.g. "debian". Empty: such runs fail with a
	// sandbox error.
	ShellImage string
	// Client is the Docker client; nil: one from the environment, closed by
	// Close.
	Client *client.Client
	// Progress receives image build output; nil discards it.
	Progress io.Writer

	// allowProbe starts run containers with -allow-probe (tests only).
	allowProbe bool
}

// Audio names the image for runs with speech clips and the programs the
// toolbox runs inside it. The image (built by package images under Image) must
// hold the toolbox binary at /toolbox and the programs below.
type Audio struct {
	// Image is the images registry name of the image, e.g. "debian".
	Image string
	// Synthesize is the argv, split on spaces, that speaks {text} into the
	// WAV file {out}, e.g. "espeak-ng -v en-us -s 140 -w {out} {text}".
	Synthesize string
	// Transcribe is the argv that prints a transcript of the WAV file {in},
	// as text or as pocketsphinx JSON lines.
	Transcribe string
}

// DefaultOptions are the limits a study gets unless it sets its own: the
// shared ones (warm.DefaultOptions) and 128 processes per container.
func DefaultOptions() Options {
	return Options{Options: warm.DefaultOptions(), PidsLimit: 128}
}

// withDefaults fills zero fields from DefaultOptions.
func (o Options) withDefaults() Options {
	o.Options = warm.WithDefaults(o.Options)
	o.PidsLimit = cmp.Or(o.PidsLimit, DefaultOptions().PidsLimit)
	return o
}

// Validate returns every problem with the options.
func (o Options) Validate() []error {
	errs := o.Options.Validate()
	if o.PidsLimit < 8 {
		errs = append(errs, fmt.Errorf("pids_limit must be at least 8, got %d", o.PidsLimit))
	}
	if o.Audio != nil && o.Audio.Image == "" {
		errs = append(errs, errors.New("audio image is empty"))
	}
	return errs
}
