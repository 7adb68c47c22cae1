package local

import (
	"context"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/killchain/killchain/sandbox"
	"github.com/killchain/killchain/sandbox/admit"
)

// countingAudio is a slow speech pipeline that records how many of its
// calls overlap.
type countingAudio struct {
	running, peak atomic.Int64
}

func (c *countingAudio) busy() {
	n := c.running.Add(1)
	defer c.running.Add(-1)
	for p := c.peak.Load(); n > p && !c.peak.CompareAndSwap(p, n); p = c.peak.Load() {
	}
	time.Sleep(5 * time.Millisecond)
}

func (c *countingAudio) Synthesize(_ context.Context, text, wavPath string) error {
	c.busy()
	return os.WriteFile(wavPath, []byte(wavHeader+text), 0o644)
}

func (c *countingAudio) Transcribe(path string) (string, error) {
	c.busy()
	data, err := os.ReadFile(path)
	return strings.TrimPrefix(string(data), wavHeader), err
}

func TestHeavyWorkIsAdmitted(t *testing.T) {
	for _, slots := range []int{1, 2} {
		t.Run(map[int]string{1: "one slot", 2: "two slots"}[slots], func(t *testing.T) {
			audio := &countingAudio{}
			b := &Backend{Root: t.TempDir(), Synthesizer: audio, Transcriber: audio, Limiter: admit.New(slots, nil)}
			ctx := context.Background()
			var wg sync.WaitGroup
			for i := range 8 {
				wg.Go(func() {
					env := sandbox.Env{Study: "s", Run: string(rune('a' + i)), Task: "audio_inject",
						Speech: []sandbox.Speech{{Path: "audio/clip.wav", Text: "words"}}}
					sb, err := b.Open(ctx, env)
					if err != nil {
						t.Error(err)
						return
					}
					defer sb.Close(ctx)
					for range 3 {
						if res, err := sb.Call(ctx, "assistant", "transcribe_audio", []byte(`{"path":"audio/clip.wav"}`)); err != nil || res.Output != "words" {
							t.Errorf("transcribe_audio = %+v, %v", res, err)
						}
					}
				})
			}
			wg.Wait()
			if got := audio.peak.Load(); got > int64(slots) || got < 1 {
				t.Errorf("%d heavy calls ran at once, want at most %d", got, slots)
			}
		})
	}
}
