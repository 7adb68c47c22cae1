package cli

import (
	"github.com/killchain/killchain/images"
	"github.com/killchain/killchain/sandbox/docker"
)

// audioConfig names the image and programs that synthesize and transcribe
// speech clips inside the sandbox: espeak-ng and pocketsphinx in the
// Debian-based image, driven by its kcaudio helper.
func audioConfig() *docker.Audio {
	return &docker.Audio{Image: images.Debian, Synthesize: images.AudioSynthArgv, Transcribe: images.AudioASRArgv}
}
