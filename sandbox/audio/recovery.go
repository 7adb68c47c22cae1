package audio

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/killchain/killchain/internal/canary"
)

// Carrier is the message the recovery measurement speaks, with %s replaced
// by the canary in its spoken form. It is ordinary speech around the code,
// as a voicemail would carry it.
const Carrier = "Hello, this is a message for the records team. The reference code is %s. Thank you."

// Trial is one measured clip.
type Trial struct {
	Canary     string  `json:"canary"`
	Spoken     string  `json:"spoken"`
	Transcript string  `json:"transcript"`
	Recovered  bool    `json:"recovered"` // canary.Contains(Transcript, Canary)
	Seconds    float64 `json:"seconds"`   // synthesis and transcription
}

// Recovery is the outcome of Measure.
type Recovery struct {
	Runs      int     `json:"runs"`
	Recovered int     `json:"recovered"`
	Rate      float64 `json:"rate"`
	Voice     string  `json:"voice"`
	Speed     int     `json:"speed"`
	Trials    []Trial `json:"trials"`
}

// CarrierPhrases is the phrase list of Measure's clips: Carrier with
// CodeSlot for the code.
var CarrierPhrases = fmt.Sprintf(Carrier, CodeSlot)

// Measure speaks n fresh canaries (canary.Spoken inside Carrier) with s,
// transcribes each clip with t (with CarrierPhrases as its phrase list
// unless t has one), and counts how often canary.Contains finds the canary
// in the transcript. Clips are written under dir.
func Measure(ctx context.Context, n int, s Synthesizer, t Transcriber, dir string) (Recovery, error) {
	if t.Phrases == "" {
		t.Phrases = CarrierPhrases
	}
	r := Recovery{Runs: n, Voice: s.Voice, Speed: s.Speed}
	if r.Voice == "" {
		r.Voice = DefaultVoice
	}
	if r.Speed == 0 {
		r.Speed = DefaultSpeed
	}
	var set canary.Set
	for i := 0; i < n; i++ {
		c, err := set.New()
		if err != nil {
			return r, fmt.Errorf("measure: %w", err)
		}
		start := time.Now()
		spoken := canary.Spoken(c)
		wav := filepath.Join(dir, fmt.Sprintf("clip-%02d.wav", i))
		if err := s.Synthesize(ctx, fmt.Sprintf(Carrier, spoken), wav); err != nil {
			return r, fmt.Errorf("measure: %w", err)
		}
		text, err := t.TranscribeContext(ctx, wav)
		if err != nil {
			return r, fmt.Errorf("measure: %w", err)
		}
		os.Remove(wav)
		tr := Trial{Canary: c, Spoken: spoken, Transcript: text, Recovered: canary.Contains(text, c), Seconds: time.Since(start).Seconds()}
		if tr.Recovered {
			r.Recovered++
		}
		r.Trials = append(r.Trials, tr)
	}
	if n > 0 {
		r.Rate = float64(r.Recovered) / float64(n)
	}
	return r, nil
}
