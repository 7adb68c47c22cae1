// Package audio runs the real speech programs of the Debian sandbox image:
// espeak-ng speaks a clip, and pocketsphinx (after sox resamples it to the
// 16 kHz mono, 16-bit signed its English model expects) transcribes it,
// against the clip's phrase list when it has one (phrases.go). The toolbox
// calls them through the kcaudio helper (cmd/kcaudio) inside the container;
// on a host with the programs installed they run directly. Bench measures
// the pipeline (TestAudioBenchmark, kcaudio bench).
package audio

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// Defaults of the synthesizer: a slow, clear American voice. The klatt2
// variant was the espeak-ng voice pocketsphinx's general English model
// recognized best; against a phrase list, plain en-us and en-us+klatt4 did
// as well on a small sample (TestAudioBenchmark -audio.voice), and
// SpeechCMN was measured on klatt2.
const (
	DefaultVoice = "en-us+klatt2"
	DefaultSpeed = 130 // words per minute
	DefaultPitch = 50  // espeak-ng's own default
)

// Programs the package runs, looked up on PATH.
const (
	Espeak       = "espeak-ng"
	Pocketsphinx = "pocketsphinx_continuous"
	Sox          = "sox"
)

// Synthesizer speaks text into WAV files with espeak-ng.
type Synthesizer struct {
	Voice string // espeak-ng voice; DefaultVoice when empty
	Speed int    // words per minute; DefaultSpeed when zero
	Pitch int    // 0–99; DefaultPitch when zero
}

// Synthesize speaks text into wavPath with the default synthesizer.
func Synthesize(ctx context.Context, text, wavPath string) error {
	return Synthesizer{}.Synthesize(ctx, text, wavPath)
}

// Synthesize speaks text into the WAV file wavPath (22.05 kHz mono, as
// espeak-ng writes it). Spelled sequences (NATO letters and digit words, as
// canary.Spoken renders a code) are read one word per sentence, with the
// pause a person reading a code aloud makes, see Script.
func (s Synthesizer) Synthesize(ctx context.Context, text, wavPath string) error {
	voice, speed, pitch := s.Voice, s.Speed, s.Pitch
	if voice == "" {
		voice = DefaultVoice
	}
	if speed == 0 {
		speed = DefaultSpeed
	}
	if pitch == 0 {
		pitch = DefaultPitch
	}
	if strings.TrimSpace(text) == "" {
		return errors.New("synthesize: empty text")
	}
	if err := os.MkdirAll(filepath.Dir(wavPath), 0o755); err != nil {
		return fmt.Errorf("synthesize: %w", err)
	}
	// The text goes on stdin so a leading "-" is never read as an option.
	_, err := run(ctx, strings.NewReader(Script(text)), Espeak, "-v", voice, "-s", fmt.Sprint(speed), "-p", fmt.Sprint(pitch), "-w", wavPath, "--stdin")
	if err != nil {
		return fmt.Errorf("synthesize: %w", err)
	}
	if fi, err := os.Stat(wavPath); err != nil || fi.Size() <= 44 {
		return fmt.Errorf("synthesize: %s wrote no audio", Espeak)
	}
	return nil
}

// spelled are the words a spelled-out code is made of: the NATO letters A–F
// and the digit words, plus the "dash" between prefix and digits.
var spelled = map[string]bool{
	"alfa": true, "alpha": true, "bravo": true, "charlie": true, "delta": true, "echo": true, "foxtrot": true,
	"zero": true, "one": true, "two": true, "three": true, "four": true, "five": true,
	"six": true, "seven": true, "eight": true, "nine": true, "niner": true, "dash": true,
}

// Script is the text espeak-ng reads: text with every run of two or more
// spelled words (see spelled) broken into one-word sentences, so each word is
// said on its own with a pause after it. Other words are left as they are.
func Script(text string) string {
	words := strings.Fields(text)
	isSpelled := func(i int) bool {
		return i >= 0 && i < len(words) && spelled[strings.ToLower(strings.Trim(words[i], ",.;:!?"))]
	}
	var b strings.Builder
	for i, w := range words {
		if i > 0 {
			b.WriteByte(' ')
		}
		inRun := isSpelled(i) && (isSpelled(i-1) || isSpelled(i+1))
		if inRun && isSpelled(i+1) {
			b.WriteString(strings.TrimRight(w, ",.;:!?"))
			b.WriteByte('.')
			continue
		}
		b.WriteString(w)
	}
	return b.String()
}

// run runs a program with an empty environment but PATH and returns its
// stdout; the error carries the end of its stderr.
func run(ctx context.Context, stdin *strings.Reader, name string, args ...string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Env = []string{"PATH=" + os.Getenv("PATH")}
	if stdin != nil {
		cmd.Stdin = stdin
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	meterFrom(ctx).add(cmd)
	if err != nil {
		msg := strings.TrimSpace(stderr.String())
		if len(msg) > 400 {
			msg = msg[len(msg)-400:]
		}
		return nil, fmt.Errorf("%s: %w: %s", name, err, msg)
	}
	return out, nil
}

// Available reports which of the programs the package needs are missing
// from PATH; nil when all are there.
func Available() error {
	var missing []string
	for _, p := range []string{Espeak, Pocketsphinx, Sox} {
		if _, err := exec.LookPath(p); err != nil {
			missing = append(missing, p)
		}
	}
	if _, err := os.Stat(filepath.Join(ModelDir, "en-us.lm.bin")); err != nil {
		missing = append(missing, "pocketsphinx-en-us ("+ModelDir+")")
	}
	if len(missing) > 0 {
		return fmt.Errorf("audio: missing %s", strings.Join(missing, ", "))
	}
	return nil
}
