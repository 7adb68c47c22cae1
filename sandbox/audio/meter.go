package audio

import (
	"context"
	"os/exec"
	"sync"
	"time"
)

// Meter adds up the CPU time (user and system) of the programs the package
// runs under a context that carries it (WithMeter): what one synthesis or
// transcription costs, whatever else the machine is doing.
type Meter struct {
	mu        sync.Mutex
	user, sys time.Duration
	runs      int
}

type meterKey struct{}

// WithMeter returns ctx carrying m: every program run under it adds its CPU
// time to m.
func WithMeter(ctx context.Context, m *Meter) context.Context {
	return context.WithValue(ctx, meterKey{}, m)
}

// add records the CPU time of a finished command.
func (m *Meter) add(cmd *exec.Cmd) {
	if m == nil || cmd.ProcessState == nil {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.user += cmd.ProcessState.UserTime()
	m.sys += cmd.ProcessState.SystemTime()
	m.runs++
}

// CPU returns the user and system time recorded so far, and how many
// programs ran.
func (m *Meter) CPU() (user, sys time.Duration, runs int) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.user, m.sys, m.runs
}

func meterFrom(ctx context.Context) *Meter {
	m, _ := ctx.Value(meterKey{}).(*Meter)
	return m
}
