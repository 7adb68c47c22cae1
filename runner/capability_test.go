package runner

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/killchain/killchain/internal/study"
	"github.com/killchain/killchain/sandbox"
	"github.com/killchain/killchain/sandbox/local"
	"github.com/killchain/killchain/tasks"
)

func TestCheckCapabilities(t *testing.T) {
	runs := func(tasks ...string) []study.Run {
		var out []study.Run
		for _, t := range tasks {
			out = append(out, study.Run{Task: t})
		}
		return out
	}
	audio := []sandbox.Capability{sandbox.Audio}
	tests := []struct {
		name string
		have []sandbox.Capability
		plan []study.Run
		want *CapabilityError // nil: accepted
	}{
		{"text tasks need nothing", nil, runs("memory_poison", "propagation"), nil},
		{"empty plan", nil, nil, nil},
		{"audio with audio", audio, runs("audio_inject", "memory_poison"), nil},
		{"audio without audio", nil, runs("memory_poison", "audio_inject", "audio_inject"),
			&CapabilityError{Backend: "b", Runs: 2, Planned: 3, Tasks: []TaskGap{{Task: "audio_inject", Missing: audio}}}},
		{"an unrelated capability does not help", []sandbox.Capability{"gpu"}, runs("audio_inject"),
			&CapabilityError{Backend: "b", Runs: 1, Planned: 1, Tasks: []TaskGap{{Task: "audio_inject", Missing: audio}}}},
		{"unknown tasks are the plan's business", nil, runs("no_such_task"), nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := CheckCapabilities("b", tt.have, tt.plan, tasks.Builtin())
			if tt.want == nil {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				return
			}
			var ce *CapabilityError
			if !errors.As(err, &ce) {
				t.Fatalf("err = %v, want a *CapabilityError", err)
			}
			if !reflect.DeepEqual(ce, tt.want) {
				t.Errorf("err = %+v, want %+v", ce, tt.want)
			}
		})
	}
}

func TestRunRefusesAMissingCapabilityBeforeWriting(t *testing.T) {
	src := []byte(`
study "needs_audio" {
  seed = 1
}
model "compliant" {
  provider = "scripted"
  policy   = "compliant"
}
grid "g" {
  tasks      = ["memory_poison", "audio_inject"]
  models     = ["compliant"]
  conditions = ["plain", "hack"]
}
`)
	s, diags := study.Parse("needs_audio.hcl", src)
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	tests := []struct {
		name    string
		backend sandbox.Backend
		refused bool
	}{
		{"local without audio", &local.Backend{Root: t.TempDir()}, true},
		{"local with audio", &local.Backend{Root: t.TempDir(), Synthesizer: echoSynth{}, Transcriber: echoTranscriber{}}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "out")
			r, err := New(s, Options{Output: out, Backend: tt.backend, Models: scriptedOnly})
			if err != nil {
				t.Fatal(err)
			}
			sum, err := r.Run(context.Background())
			var ce *CapabilityError
			if got := errors.As(err, &ce); got != tt.refused {
				t.Fatalf("refused = %v (err %v), want %v", got, err, tt.refused)
			}
			if !tt.refused {
				if err != nil || sum.Ran != sum.Planned || sum.Errors != 0 {
					t.Fatalf("summary %+v, err %v", sum, err)
				}
				return
			}
			if sum.Ran != 0 {
				t.Errorf("%d runs ran", sum.Ran)
			}
			if _, err := os.Stat(out); !os.IsNotExist(err) {
				t.Errorf("output folder written: %v", err)
			}
		})
	}
}

// echoSynth "speaks" text by writing it to the clip; echoTranscriber reads
// it back: a perfect speech pipeline for tests.
type echoSynth struct{}

func (echoSynth) Synthesize(_ context.Context, text, wavPath string) error {
	return os.WriteFile(wavPath, []byte(text), 0o644)
}

type echoTranscriber struct{}

func (echoTranscriber) Transcribe(path string) (string, error) {
	data, err := os.ReadFile(path)
	return string(data), err
}
