package warm

import (
	"cmp"
	"errors"
	"fmt"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/killchain/killchain/sandbox/admit"
)

// Options are what the container backends (Docker, Kubernetes) share of
// their configuration: each sandbox's limits, the timeouts of its requests
// and cleanup, the warm pool, the admission of heavy requests and the
// logger. Each backend's Options embeds them. Zero fields take the
// defaults of DefaultOptions.
type Options struct {
	// MemoryMB is the memory limit of each sandbox (swap disabled on
	// Docker; on Kubernetes also the pod's memory request).
	MemoryMB int64
	// CPUs is the CPU quota (Docker) or limit (Kubernetes) of each sandbox.
	CPUs float64
	// StateMB bounds the in-memory volume that holds the state folder (a
	// tmpfs on Docker, an emptyDir on Kubernetes).
	StateMB int64
	// CallTimeout bounds one request to the sandbox (a tool call, prepare,
	// state); a sandbox that does not answer in time is a sandbox error.
	// It counts the request's own running time: a heavy request waiting
	// for admission (see HeavyConcurrency) is bounded only by its context.
	CallTimeout time.Duration
	// CleanupTimeout bounds the removal of a sandbox, on a context apart
	// from the run's so that cancelled runs are still cleaned up.
	CleanupTimeout time.Duration
	// WarmPool is how many started, unplanted sandboxes the backend keeps
	// ready per study and task snapshot, so that a run's critical path
	// holds no create or start; 0 turns the pool off. Each is used by one
	// run only and removed when it ends (see Pool).
	WarmPool int
	// HeavyConcurrency bounds the CPU-heavy requests (speech synthesis at
	// set-up, tools.IsHeavy tool calls) running at once across every
	// sandbox of the backend; 0 means one per CPU of this machine.
	HeavyConcurrency int
	// Limiter, when set, is the admission limiter heavy requests go
	// through, shared with other backends of the process; it overrides
	// HeavyConcurrency. Nil: the backend makes its own.
	Limiter *admit.Limiter
	// Logger is the parent logger; each backend logs under its name.
	Logger hclog.Logger
}

// DefaultOptions are the limits a study gets unless it sets its own, on
// either backend.
func DefaultOptions() Options {
	return Options{
		MemoryMB:       256,
		CPUs:           1,
		StateMB:        64,
		CallTimeout:    2 * time.Minute,
		CleanupTimeout: 30 * time.Second,
	}
}

// WithDefaults returns o with its zero fields taken from DefaultOptions and
// a logger that discards where none is set. (A function, not a method, so
// that it is not promoted onto the backends' Options.)
func WithDefaults(o Options) Options {
	d := DefaultOptions()
	o.MemoryMB = cmp.Or(o.MemoryMB, d.MemoryMB)
	o.CPUs = cmp.Or(o.CPUs, d.CPUs)
	o.StateMB = cmp.Or(o.StateMB, d.StateMB)
	o.CallTimeout = cmp.Or(o.CallTimeout, d.CallTimeout)
	o.CleanupTimeout = cmp.Or(o.CleanupTimeout, d.CleanupTimeout)
	if o.Logger == nil {
		o.Logger = hclog.NewNullLogger()
	}
	return o
}

// Validate returns every problem with the shared options; each backend's
// Validate adds its own.
func (o Options) Validate() []error {
	var errs []error
	if o.MemoryMB < 16 {
		errs = append(errs, fmt.Errorf("memory_mb must be at least 16, got %d", o.MemoryMB))
	}
	if o.CPUs <= 0 {
		errs = append(errs, fmt.Errorf("cpus must be positive, got %g", o.CPUs))
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
	return errs
}
