package docker

import "github.com/killchain/killchain/sandbox"

var _ sandbox.Capable = (*Backend)(nil)

// Capabilities says what a backend opened with these options can do: audio
// when an audio image is configured, shell when a shell image is. The CLI asks it before Docker is
// reached (plan), so it must not depend on the daemon.
func (o Options) Capabilities() []sandbox.Capability {
	var out []sandbox.Capability
	if o.Audio != nil {
		out = append(out, sandbox.Audio)
	}
	if o.ShellImage != "" {
		out = append(out, sandbox.Shell)
	}
	return out
}

// Capabilities says what the backend can do (see Options.Capabilities).
func (b *Backend) Capabilities() []sandbox.Capability { return b.opts.Capabilities() }
