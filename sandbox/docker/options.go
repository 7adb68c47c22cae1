package docker

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/moby/moby/client"

	"github.com/killchain/killchain/sandbox/admit"
)

// Labels carried by everything the backend creates.
const (
	LabelStudy    = "killchain.study"
	LabelRun      = "killchain.run"
	LabelTask     = "killchain.task"
	LabelSnapshot = "killchain.snapshot" // on snapshot images: the content hash
)

// Paths inside the sandbox.
const (
	StateDir    = "/work"     // the writable state folder (a tmpfs)
	PristineDir = "/snapshot" // the task's pristine state, read-only
	ToolboxPath = "/toolbox"  // the in-sandbox binary
	SandboxUser = "65534:65534"
)

// Options configure the backend. Zero fields take the defaults of
// DefaultOptions.
type Options struct {
	// MemoryMB is the memory limit of each container (swap disabled).
	MemoryMB int64
	// CPUs is the CPU quota of each container.
	CPUs float64
	// PidsLimit bounds the processes (and threads) of each container.
	PidsLimit int64
	// StateMB bounds the tmpfs that holds the state folder.
	StateMB int64
	// Runtime is the OCI runtime: "" for the daemon's default, or "runsc"
	// for gVisor where installed.
	Runtime string
	// CallTimeout bounds one request to the sandbox (a tool call, prepare,
	// state); a sandbox that does not answer in time is a sandbox error.
	// It counts the request's own running time: a heavy request waiting
	// for admission (see HeavyConcurrency) is bounded only by its context.
	CallTimeout time.Duration
	// HeavyConcurrency bounds the CPU-heavy requests (speech synthesis at
	// set-up, tools.IsHeavy tool calls) running at once across every
	// sandbox of the backend; 0 means one per CPU of this machine.
	HeavyConcurrency int
	// Limiter, when set, is the admission limiter heavy requests go
	// through, shared with other backends of the process; it overrides
	// HeavyConcurrency. Nil: the backend makes its own.
	Limiter *admit.Limiter
	// CleanupTimeout bounds the removal of a container, on a context apart
	// from the run's so that cancelled runs are still cleaned up.
	CleanupTimeout time.Duration
	// WarmPool is how many started, unplanted containers the backend keeps
	// ready per study and task snapshot, so that a run's critical path
	// holds no container create or start; 0 turns the pool off. Each is
	// used by one run only and removed when it ends (see package warm).
	WarmPool int
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
	// Logger is the parent logger; the backend logs under "docker".
	Logger hclog.Logger

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

// DefaultOptions are the limits a study gets unless it sets its own.
func DefaultOptions() Options {
	return Options{
		MemoryMB:       256,
		CPUs:           1,
		PidsLimit:      128,
		StateMB:        64,
		CallTimeout:    2 * time.Minute,
		CleanupTimeout: 30 * time.Second,
	}
}

// withDefaults fills zero fields from DefaultOptions.
func (o Options) withDefaults() Options {
	d := DefaultOptions()
	o.MemoryMB = cmp.Or(o.MemoryMB, d.MemoryMB)
	o.CPUs = cmp.Or(o.CPUs, d.CPUs)
	o.PidsLimit = cmp.Or(o.PidsLimit, d.PidsLimit)
	o.StateMB = cmp.Or(o.StateMB, d.StateMB)
	o.CallTimeout = cmp.Or(o.CallTimeout, d.CallTimeout)
	o.CleanupTimeout = cmp.Or(o.CleanupTimeout, d.CleanupTimeout)
	if o.Logger == nil {
		o.Logger = hclog.NewNullLogger()
	}
	return o
}

// Validate returns every problem with the options.
func (o Options) Validate() []error {
	var errs []error
	if o.MemoryMB < 16 {
		errs = append(errs, fmt.Errorf("memory_mb must be at least 16, got %d", o.MemoryMB))
	}
	if o.CPUs <= 0 {
		errs = append(errs, fmt.Errorf("cpus must be positive, got %g", o.CPUs))
	}
	if o.PidsLimit < 8 {
		errs = append(errs, fmt.Errorf("pids_limit must be at least 8, got %d", o.PidsLimit))
	}
	if o.StateMB < 1 {
		errs = append(errs, fmt.Errorf("state_mb must be positive, got %d", o.StateMB))
	}
	if o.WarmPool < 0 {
		errs = append(errs, fmt.Errorf("warm_pool must not be negative, got %d", o.WarmPool))
	}
	if o.HeavyConcurrency < 0 {
		errs = append(errs, fmt.Errorf("heavy_concurrency must not be negative, got %d", o.HeavyConcurrency))
	}
	if o.CallTimeout < 0 || o.CleanupTimeout < 0 {
		errs = append(errs, errors.New("timeouts must not be negative"))
	}
	if o.Audio != nil && o.Audio.Image == "" {
		errs = append(errs, errors.New("audio image is empty"))
	}
	return errs
}
