//go:build !cgo

// Package engine reads the residual stream of a local model through
// Ollama's own Go inference engine. Built without cgo (this file), it has
// no engine and every call says so.
package engine

import (
	"errors"

	"github.com/hashicorp/go-hclog"

	"github.com/killchain/killchain/probes"
)

// ErrNoCgo is returned by every function of a build without cgo.
var ErrNoCgo = errors.New("probes engine: built without cgo (CGO_ENABLED=0); build killchain-probes with cgo (make build)")

// Options configure an Engine.
type Options struct {
	Threads, Context, Batch, GPULayers int
	Logger                             hclog.Logger
}

// Open fails: there is no engine without cgo.
func Open(string, Options) (probes.Engine, error) { return nil, ErrNoCgo }

// Devices fails: there is no engine without cgo.
func Devices(string) ([]probes.Device, error) { return nil, ErrNoCgo }

// Supported lists no architecture without cgo.
func Supported() []string { return nil }
