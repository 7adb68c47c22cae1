package docker

import "github.com/killchain/killchain/sandbox"

var _ sandbox.Capable = (*Backend)(nil)

// Capabilities says what a backend opened with these options can do: audio
// when an audio image is configured. The CLI asks it before Docker is
// reached (plan), so it must not depend on the daemon.
func (o Options) Capabilities() []sandbox.Capability {
	if o.Audio != nil {
		return []sandbox.Capability{sandbox.Audio}
	}
	return nil
}

// Capabilities says what the backend can do (see Options.Capabilities).
func (b *Backend) Capabilities() []sandbox.Capability { return b.opts.Capabilities() }
