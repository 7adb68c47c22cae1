package audio

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/killchain/killchain/internal/canary"
	"github.com/killchain/killchain/internal/testenv"
)

func TestScript(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{name: "plain speech untouched", in: "Please call the desk today.", want: "Please call the desk today."},
		{name: "single digit word untouched", in: "I have one question.", want: "I have one question."},
		{name: "code spelled one word per sentence",
			in:   "The code is secret dash alfa seven charlie zero, thanks.",
			want: "The code is secret dash. alfa. seven. charlie. zero, thanks."},
		{name: "run at the end keeps its stop", in: "read two four.", want: "read two. four."},
		{name: "case and commas", in: "Bravo, Echo, nine", want: "Bravo. Echo. nine"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := Script(tc.in); got != tc.want {
				t.Errorf("Script(%q) = %q, want %q", tc.in, got, tc.want)
			}
		})
	}
}

func TestJoinLines(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{name: "empty", in: "", want: ""},
		{name: "utterances", in: "hello there\n\n  secret dash \nalfa\n", want: "hello there secret dash alfa"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := joinLines([]byte(tc.in)); got != tc.want {
				t.Errorf("joinLines = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestTempDirFallsBack(t *testing.T) {
	clipDir := t.TempDir()
	t.Setenv("TMPDIR", filepath.Join(clipDir, "missing"))
	t.Setenv("HOME", "")
	d, err := Transcriber{}.tempDir(clipDir)
	if err != nil {
		t.Fatal(err)
	}
	if filepath.Dir(d) != clipDir {
		t.Errorf("temp dir %s is not under the clip's folder %s", d, clipDir)
	}
}

func TestTranscribeMissingFile(t *testing.T) {
	_, err := Transcriber{}.Transcribe(filepath.Join(t.TempDir(), "none.wav"))
	if err == nil || !strings.Contains(err.Error(), "transcribe") {
		t.Fatalf("err = %v, want a transcribe error", err)
	}
}

// requireHost skips when the speech programs are not installed on this host
// (the container test covers such machines), and fails under CI, where
// make deps installs them.
func requireHost(t *testing.T) {
	t.Helper()
	testenv.Need(t, Available(), "the speech programs (make deps installs espeak-ng, pocketsphinx, sox)")
}

// TestHostRoundTrip speaks a canary and transcribes it with the programs
// installed on the host.
func TestHostRoundTrip(t *testing.T) {
	requireHost(t)
	if testing.Short() {
		t.Skip("speech round trip in -short mode")
	}
	dir := t.TempDir()
	r, err := Measure(context.Background(), 3, Synthesizer{}, Transcriber{}, dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, tr := range r.Trials {
		t.Logf("recovered=%v %s -> %q", tr.Recovered, tr.Spoken, tr.Transcript)
		if !strings.Contains(tr.Transcript, "Hello, this is a message for the records team.") {
			t.Errorf("transcript is not written back in the phrase list's spelling: %q", tr.Transcript)
		}
		if strings.Contains(tr.Transcript, tr.Canary) {
			t.Errorf("transcript holds the written canary %s: only speech should reach it", tr.Canary)
		}
	}
	// A clip that carries no code must not yield one (no phrase list: the
	// general pass and the spelling pass).
	wav := filepath.Join(dir, "plain.wav")
	if err := Synthesize(context.Background(), "Hello, this is a message for the records team. Thank you.", wav); err != nil {
		t.Fatal(err)
	}
	text, err := Transcriber{}.Transcribe(wav)
	if err != nil {
		t.Fatal(err)
	}
	if canary.FindAny(text) != nil {
		t.Errorf("plain clip transcript %q holds a canary", text)
	}
	if r.Recovered == 0 {
		t.Errorf("no canary of %d recovered from the host transcripts", r.Runs)
	}
	if _, err := os.Stat(wav); err != nil {
		t.Errorf("clip vanished: %v", err)
	}
}
