package docker

import (
	"testing"

	"github.com/killchain/killchain/internal/sandboxtest"
)

// TestWorld plays the shared stateful-environment check in a hardened
// container: the toolbox keeps the state and answers as the local backend
// does, byte for byte.
func TestWorld(t *testing.T) {
	b := newBackend(t, Options{})
	sandboxtest.WorldCalls(t, sandboxtest.OpenerOf(b, uniqueStudy(t)))
}
