package cli

import "github.com/killchain/killchain/sandbox/docker"

// audioConfig names the image and programs that synthesize and transcribe
// speech clips inside the sandbox.
func audioConfig() *docker.Audio {
	return nil
}
