package local

import (
	"context"
	"errors"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/killchain/killchain/sandbox"
)

// echoSynth "speaks" text by writing it after a WAV header to the clip;
// echoTranscriber reads it back: a perfect speech pipeline.
type echoSynth struct{}

// wavHeader starts every clip echoSynth writes.
const wavHeader = "RIFF\x00\x00\x00\x00WAVE"

func (echoSynth) Synthesize(_ context.Context, text, wavPath string) error {
	return os.WriteFile(wavPath, []byte(wavHeader+text), 0o644)
}

type echoTranscriber struct{}

func (echoTranscriber) Transcribe(path string) (string, error) {
	data, err := os.ReadFile(path)
	return strings.TrimPrefix(string(data), wavHeader), err
}

func TestAudioCapability(t *testing.T) {
	speech := sandbox.Env{Study: "s", Run: "r1", Task: "audio_inject",
		Speech: []sandbox.Speech{{Path: "audio/clip.wav", Text: "the crane arrives on Thursday"}}}
	tests := []struct {
		name    string
		backend Backend
		audio   bool
	}{
		{"no pipeline", Backend{}, false},
		{"transcriber only", Backend{Transcriber: echoTranscriber{}}, false},
		{"synthesizer only", Backend{Synthesizer: echoSynth{}}, false},
		{"both", Backend{Synthesizer: echoSynth{}, Transcriber: echoTranscriber{}}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := tt.backend
			b.Root = t.TempDir()
			if got := slices.Contains(sandbox.CapabilitiesOf(&b), sandbox.Audio); got != tt.audio {
				t.Fatalf("audio capability = %v, want %v", got, tt.audio)
			}
			ctx := context.Background()
			sb, err := b.Open(ctx, speech)
			if !tt.audio {
				if !errors.Is(err, sandbox.ErrUnavailable) {
					t.Fatalf("Open with speech: err = %v, want ErrUnavailable", err)
				}
				plain, err := b.Open(ctx, sandbox.Env{Study: "s", Run: "r2", Task: "memory_poison"})
				if err != nil {
					t.Fatalf("Open without speech: %v", err)
				}
				plain.Close(ctx)
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			defer sb.Close(ctx)
			res, err := sb.Call(ctx, "assistant", "transcribe_audio", []byte(`{"path":"audio/clip.wav"}`))
			if err != nil || res.Error != "" || res.Output != speech.Speech[0].Text {
				t.Errorf("transcribe_audio = %+v, %v; want the spoken text", res, err)
			}
		})
	}
}

func TestSpeechOutsideTheFolderIsRefused(t *testing.T) {
	b := Backend{Root: t.TempDir(), Synthesizer: echoSynth{}, Transcriber: echoTranscriber{}}
	env := sandbox.Env{Run: "r1", Speech: []sandbox.Speech{{Path: "../escape.wav", Text: "x"}}}
	if _, err := b.Open(context.Background(), env); err == nil {
		t.Fatal("a clip outside the run folder was synthesized")
	}
}
