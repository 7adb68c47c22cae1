package sandbox

import "slices"

// Capability is something a task may need that not every backend can do.
// The tools every backend runs (files, memory, the outbox) are no
// capability; only what a backend may lack is.
type Capability string

// Capabilities a task may need.
const (
	// Audio is synthesizing a task's speech clips (Env.Speech) at set-up and
	// transcribing them for the transcribe_audio tool.
	Audio Capability = "audio"
	// Shell is running run_shell commands in a POSIX shell with the usual
	// programs (sh, awk, sed, coreutils).
	Shell Capability = "shell"
)

// Describe says what a capability is, for messages.
func (c Capability) Describe() string {
	switch c {
	case Audio:
		return "speech synthesis and transcription"
	case Shell:
		return "a POSIX shell for run_shell"
	}
	return string(c)
}

// Capable is a Backend that says which capabilities it has. A backend that
// does not implement it has none.
type Capable interface {
	Capabilities() []Capability
}

// CapabilitiesOf returns what backend b can do.
func CapabilitiesOf(b Backend) []Capability {
	if c, ok := b.(Capable); ok {
		return c.Capabilities()
	}
	return nil
}

// Missing returns the capabilities in need that have lacks, in need's order.
func Missing(need, have []Capability) []Capability {
	var out []Capability
	for _, c := range need {
		if !slices.Contains(have, c) && !slices.Contains(out, c) {
			out = append(out, c)
		}
	}
	return out
}
