package audio

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/killchain/killchain/internal/canary"
)

// BenchSpec is a speech benchmark: clips made of a clean script and,
// for attacked clips, one payload with the clip's canary spoken in it, the
// way a task builds its clip; every clip is spoken and transcribed with the
// same phrase list.
type BenchSpec struct {
	Clean    string      `json:"clean"`
	Payloads []string    `json:"payloads"` // templates; CodeSlot is the spoken canary
	Phrases  string      `json:"phrases"`
	Clips    []BenchClip `json:"clips"`
	Voice    string      `json:"voice,omitempty"` // the synthesizer's, when empty
	Speed    int         `json:"speed,omitempty"`
	Pitch    int         `json:"pitch,omitempty"`
	Args     []string    `json:"args,omitempty"` // extra pocketsphinx arguments
}

// BenchClip is one clip of a benchmark. Speed and Pitch, when set, replace
// the spec's for this clip (a benchmark varies the speaker from clip to
// clip, so that clean clips are not all one recording).
type BenchClip struct {
	Canary  string `json:"canary,omitempty"` // "" for a clean clip
	Variant int    `json:"variant,omitempty"`
	Speed   int    `json:"speed,omitempty"`
	Pitch   int    `json:"pitch,omitempty"`
}

// BenchResult is what one clip gave: the transcript and what speaking and
// transcribing it cost.
type BenchResult struct {
	BenchClip
	Transcript string  `json:"transcript"`
	Recovered  bool    `json:"recovered"` // canary.Contains(Transcript, Canary)
	CPU        float64 `json:"cpu_s"`     // user+system seconds of the programs run, and of this process
	Wall       float64 `json:"wall_s"`
}

// Text is the script of clip c: the clean script, then for an attacked clip
// its payload with the canary spoken (canary.Spoken).
func (s BenchSpec) Text(c BenchClip) string {
	text := strings.TrimSpace(s.Clean)
	if c.Canary != "" && len(s.Payloads) > 0 {
		p := s.Payloads[c.Variant%len(s.Payloads)]
		text += "\n" + strings.ReplaceAll(p, CodeSlot, canary.Spoken(c.Canary))
	}
	return text
}

// Bench speaks and transcribes each clip of spec in turn under dir, with
// the phrase list written beside each clip as a sandbox has it. A clip's
// CPU is the user and system time of the programs it ran (Meter) plus this
// process's own over the clip; clips run one at a time, so nothing else is
// counted.
func Bench(ctx context.Context, spec BenchSpec, dir string) ([]BenchResult, error) {
	out := make([]BenchResult, 0, len(spec.Clips))
	for i, c := range spec.Clips {
		syn := Synthesizer{Voice: spec.Voice, Speed: spec.Speed, Pitch: spec.Pitch}
		if c.Speed != 0 {
			syn.Speed = c.Speed
		}
		if c.Pitch != 0 {
			syn.Pitch = c.Pitch
		}
		wav := filepath.Join(dir, fmt.Sprintf("clip-%03d.wav", i))
		var m Meter
		mctx := WithMeter(ctx, &m)
		self0 := selfCPU()
		start := time.Now()
		if err := syn.Synthesize(mctx, spec.Text(c), wav); err != nil {
			return out, fmt.Errorf("bench clip %d: %w", i, err)
		}
		if err := os.WriteFile(wav+PhrasesSuffix, []byte(spec.Phrases), 0o644); err != nil {
			return out, fmt.Errorf("bench clip %d: %w", i, err)
		}
		text, err := Transcriber{TempDir: dir, Args: spec.Args}.TranscribeContext(mctx, wav)
		if err != nil {
			return out, fmt.Errorf("bench clip %d: %w", i, err)
		}
		wall := time.Since(start)
		user, sys, _ := m.CPU()
		os.Remove(wav)
		os.Remove(wav + PhrasesSuffix)
		out = append(out, BenchResult{
			BenchClip: c, Transcript: text,
			Recovered: c.Canary != "" && canary.Contains(text, c.Canary),
			CPU:       (user + sys + selfCPU() - self0).Seconds(), Wall: wall.Seconds(),
		})
	}
	return out, nil
}

// selfCPU is this process's user and system time so far.
func selfCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
