package kubernetes

import (
	"testing"

	"github.com/killchain/killchain/internal/sandboxtest"
)

// TestWorld plays the shared stateful-environment check in a pod.
func TestWorld(t *testing.T) {
	b := newBackend(t, Options{})
	sandboxtest.WorldCalls(t, sandboxtest.OpenerOf(b, uniqueStudy(t, b)))
}
