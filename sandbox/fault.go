package sandbox

import (
	"errors"
	"fmt"
)

// Fault names why a sandbox failed, so that a study's errors can be told
// apart (a cluster that cannot place pods is not a task that runs out of
// memory). Any backend may mark its errors with one; results keep it as a
// sandbox error's reason.
type Fault string

// Faults a backend reports.
const (
	// FaultUnschedulable: no node could take the sandbox before its
	// scheduling deadline.
	FaultUnschedulable Fault = "unschedulable"
	// FaultImage: the sandbox's image could not be pulled or is not on the
	// node (ErrImagePull, ImagePullBackOff, ErrImageNeverPull).
	FaultImage Fault = "image"
	// FaultStart: the sandbox was placed but its container would not start.
	FaultStart Fault = "start"
	// FaultOOMKilled: the out-of-memory killer ended the sandbox's process.
	FaultOOMKilled Fault = "oom_killed"
	// FaultEvicted: the node evicted the sandbox (pressure, drain).
	FaultEvicted Fault = "evicted"
	// FaultExited: the sandbox's process or container ended unexpectedly.
	FaultExited Fault = "exited"
	// FaultTimeout: the sandbox did not answer a request in time.
	FaultTimeout Fault = "timeout"
	// FaultProtocol: the sandbox's stream broke the protocol (a response
	// over the size limit, a line that is not JSON, an answer to no
	// request); nothing it says is trusted after that.
	FaultProtocol Fault = "protocol"
)

// FaultError is a sandbox error marked with its fault.
type FaultError struct {
	Fault Fault
	Err   error
}

func (e *FaultError) Error() string { return e.Err.Error() }
func (e *FaultError) Unwrap() error { return e.Err }

// Failf returns an error marked with fault f; %w in format wraps as usual.
func Failf(f Fault, format string, args ...any) error {
	return &FaultError{Fault: f, Err: fmt.Errorf(format, args...)}
}

// FaultOf returns the fault err is marked with, or "" when it has none.
func FaultOf(err error) Fault {
	var fe *FaultError
	if errors.As(err, &fe) {
		return fe.Fault
	}
	return ""
}
