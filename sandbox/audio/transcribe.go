package audio

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// ModelDir is where Debian's pocketsphinx-en-us puts the English model.
const ModelDir = "/usr/share/pocketsphinx/model/en-us"

// SpelledPrefix starts the second line of a transcript: what the spelling
// pass heard.
const SpelledPrefix = "Spelled out: "

// spellGrammar is the JSGF grammar of the spelling pass: any sequence of the
// words a spelled code is read with.
const spellGrammar = `#JSGF V1.0;
grammar spelled;
public <utterance> = <word>+;
<word> = secret | dash | alfa | bravo | charlie | delta | echo | foxtrot | zero | one | two | three | four | five | six | seven | eight | nine;
`

// Transcriber transcribes WAV files with pocketsphinx. It implements
// toolbox.Transcriber.
//
// A clip with a phrase list beside it (its path + PhrasesSuffix, written by
// the toolbox from sandbox.Speech.Phrases; see phrases.go) is decoded once,
// against a JSGF grammar made from the list: any sequence of the listed
// sentence parts and of spelled codes ("secret dash" and eight NATO letters
// or digit words, each heard on its own). The decoder starts from the
// cepstral mean of espeak-ng's voice (SpeechCMN) and lets an utterance run
// past pauses (DecoderArgs). The words it heard are written back in the
// list's spelling, one sentence a line (grammar.format). This is how the
// audio task's clips are transcribed: about a second of CPU for a clip of
// 30 to 50 seconds, and the sentences and codes heard as spoken (see
// docs/audio.md for the measured figures).
//
// A clip without a phrase list is decoded twice. The first pass uses the
// model's general English language model; it is the transcript of the
// clip's ordinary speech. The second pass decodes the same audio with a
// vocabulary restricted to the words codes are spelled with (NATO letters,
// digit words, "secret", "dash"), which a general model confuses with short
// common words; its words are the transcript's second line, after
// SpelledPrefix. Both are what the recognizer heard in the clip: nothing is
// added that the audio does not carry, and over speech that is not spelled
// the second pass hears spelling words that were never said. This costs
// about a quarter of the clip's length in CPU, and general recognition of
// synthetic speech is poor.
type Transcriber struct {
	// TempDir holds the resampled clip and the grammar while a clip is
	// transcribed; empty: the system temp folder, else $HOME, else the
	// clip's folder (sandboxes have a read-only root).
	TempDir string
	// Phrases, when set, is used as the clip's phrase list instead of the
	// file beside it.
	Phrases string
	// Args are extra pocketsphinx arguments of the phrase-list pass (for
	// measurements; DecoderArgs are always given).
	Args []string
}

// SpeechCMN is the initial cepstral mean of the phrase-list pass: that of
// espeak-ng's voice as pocketsphinx measures it, in place of the model's
// (recorded human speech). pocketsphinx_continuous normalizes live from
// this value; with the model's own, the decoder mishears the first seconds
// of a synthetic clip and a whole-clip utterance can fall off the grammar.
const SpeechCMN = "63.0,16.0,-15.5,22.0,-17.5,0.5,-11.0,-21.0,0.5,-14.5,5.5,-4.5,0.5"

// DecoderArgs are the pocketsphinx settings of the phrase-list pass. Each
// utterance may run past pauses of up to a second (the pause before a new
// sentence or between spelled symbols is shorter), so a sentence or a code
// is rarely cut in two.
var DecoderArgs = []string{"-vad_postspeech", "100"}

// Transcribe returns the transcript of the WAV file at path.
func (t Transcriber) Transcribe(path string) (string, error) {
	return t.TranscribeContext(context.Background(), path)
}

// TranscribeContext is Transcribe under ctx.
func (t Transcriber) TranscribeContext(ctx context.Context, path string) (string, error) {
	if _, err := os.Stat(path); err != nil {
		return "", fmt.Errorf("transcribe: %w", err)
	}
	tmp, err := t.tempDir(filepath.Dir(path))
	if err != nil {
		return "", fmt.Errorf("transcribe: %w", err)
	}
	defer os.RemoveAll(tmp)
	clip := filepath.Join(tmp, "clip.wav")
	if _, err := run(ctx, nil, Sox, path, "-r", "16000", "-c", "1", "-b", "16", "-e", "signed-integer", clip); err != nil {
		return "", fmt.Errorf("transcribe: resample: %w", err)
	}
	common := []string{"-infile", clip, "-hmm", filepath.Join(ModelDir, "en-us"),
		// Synthetic speech has digital silence between words; pocketsphinx's
		// noise removal then eats the quiet ends of words.
		"-remove_noise", "no", "-logfn", "/dev/null"}
	phrases := t.Phrases
	if phrases == "" {
		if phrases, err = ReadPhrases(path); err != nil {
			return "", fmt.Errorf("transcribe: %w", err)
		}
	}
	if strings.TrimSpace(phrases) != "" {
		return t.withPhrases(ctx, phrases, tmp, common)
	}
	gram := filepath.Join(tmp, "spelled.gram")
	if err := os.WriteFile(gram, []byte(spellGrammar), 0o644); err != nil {
		return "", fmt.Errorf("transcribe: %w", err)
	}
	common = append(common, "-dict", filepath.Join(ModelDir, "cmudict-en-us.dict"))
	general, err := run(ctx, nil, Pocketsphinx, append(common, "-lm", filepath.Join(ModelDir, "en-us.lm.bin"))...)
	if err != nil {
		return "", fmt.Errorf("transcribe: general pass: %w", err)
	}
	spelledOut, err := run(ctx, nil, Pocketsphinx, append(common, "-jsgf", gram)...)
	if err != nil {
		return "", fmt.Errorf("transcribe: spelling pass: %w", err)
	}
	text := joinLines(general)
	if s := joinLines(spelledOut); s != "" {
		text += "\n" + SpelledPrefix + s
	}
	return text, nil
}

// withPhrases decodes the resampled clip against the grammar of phrases
// and writes what it heard in the list's spelling (grammar.format).
func (t Transcriber) withPhrases(ctx context.Context, phrases, tmp string, common []string) (string, error) {
	lex, err := loadLexicon(filepath.Join(ModelDir, "cmudict-en-us.dict"), lexiconWords(phrases))
	if err != nil {
		return "", fmt.Errorf("transcribe: %w", err)
	}
	g := parsePhrases(phrases, lex)
	params, err := os.ReadFile(filepath.Join(ModelDir, "en-us", "feat.params"))
	if err != nil {
		return "", fmt.Errorf("transcribe: %w", err)
	}
	gram, dict, feat := filepath.Join(tmp, "clip.gram"), filepath.Join(tmp, "clip.dict"), filepath.Join(tmp, "feat.params")
	for name, data := range map[string]string{gram: g.jsgf(), dict: g.dictionary(), feat: withCMN(string(params), SpeechCMN)} {
		if err := os.WriteFile(name, []byte(data), 0o644); err != nil {
			return "", fmt.Errorf("transcribe: %w", err)
		}
	}
	args := append(append(append(common, "-jsgf", gram, "-dict", dict, "-featparams", feat), DecoderArgs...), t.Args...)
	out, err := run(ctx, nil, Pocketsphinx, args...)
	if err != nil {
		return "", fmt.Errorf("transcribe: %w", err)
	}
	if strings.TrimSpace(string(out)) == "" {
		// The clip fell off the grammar as one utterance; decoded in
		// utterances cut at every pause, only the one that does is lost.
		if out, err = run(ctx, nil, Pocketsphinx, append(args, "-vad_postspeech", "50")...); err != nil {
			return "", fmt.Errorf("transcribe: %w", err)
		}
	}
	return g.format(strings.Fields(joinLines(out))), nil
}

// withCMN is a feat.params file with its -cmninit line set to cmn. The
// model's file wins over a -cmninit argument, so the pass gets its own.
func withCMN(params, cmn string) string {
	var out []string
	for _, l := range strings.Split(strings.TrimSpace(params), "\n") {
		if !strings.HasPrefix(strings.TrimSpace(l), "-cmninit") {
			out = append(out, l)
		}
	}
	return strings.Join(append(out, "-cmninit "+cmn), "\n") + "\n"
}

// tempDir makes a private folder in the first writable candidate.
func (t Transcriber) tempDir(clipDir string) (string, error) {
	cands := []string{t.TempDir}
	if t.TempDir == "" {
		cands = []string{os.TempDir(), os.Getenv("HOME"), clipDir}
	}
	var last error
	for _, c := range cands {
		if c == "" {
			continue
		}
		d, err := os.MkdirTemp(c, ".kcaudio-")
		if err == nil {
			return d, nil
		}
		last = err
	}
	return "", fmt.Errorf("no writable temp folder: %w", last)
}

// joinLines joins pocketsphinx's one-line-per-utterance output.
func joinLines(out []byte) string {
	var parts []string
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		if l := strings.TrimSpace(sc.Text()); l != "" {
			parts = append(parts, l)
		}
	}
	return strings.Join(parts, " ")
}
