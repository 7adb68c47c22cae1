// Command kcaudio is the speech helper of the Debian sandbox image, built
// statically and installed at /usr/local/bin/kcaudio. The toolbox runs it as
// its -synth and -asr argv:
//
//	kcaudio speak OUT.wav TEXT…      speak TEXT into OUT.wav (espeak-ng)
//	kcaudio transcribe IN.wav        print the transcript of IN.wav (pocketsphinx)
//	kcaudio measure [-n 20] [-json]  canary recovery over n fresh clips
//	kcaudio bench SPEC.json|-         speak and transcribe audio.BenchSpec's clips, print JSON results
//	kcaudio check                    exit non-zero when a program is missing
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/killchain/killchain/sandbox/audio"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprintln(stderr, "usage: kcaudio speak OUT TEXT… | transcribe IN | measure [-n N] [-json] | check")
		return 2
	}
	fail := func(err error) int {
		fmt.Fprintln(stderr, "kcaudio:", err)
		return 1
	}
	switch args[0] {
	case "check":
		if err := audio.Available(); err != nil {
			return fail(err)
		}
		fmt.Fprintln(stdout, "kcaudio: espeak-ng, pocketsphinx, sox and the English model are present")
		return 0
	case "speak":
		if len(args) < 3 {
			fmt.Fprintln(stderr, "usage: kcaudio speak OUT TEXT…")
			return 2
		}
		if err := audio.Synthesize(ctx, strings.Join(args[2:], " "), args[1]); err != nil {
			return fail(err)
		}
		return 0
	case "transcribe":
		if len(args) != 2 {
			fmt.Fprintln(stderr, "usage: kcaudio transcribe IN")
			return 2
		}
		text, err := audio.Transcriber{}.TranscribeContext(ctx, args[1])
		if err != nil {
			return fail(err)
		}
		fmt.Fprintln(stdout, text)
		return 0
	case "measure":
		return measure(ctx, args[1:], stdout, stderr)
	case "bench":
		if len(args) != 2 {
			fmt.Fprintln(stderr, "usage: kcaudio bench SPEC.json|- (or a JSON object as the argument)")
			return 2
		}
		if err := bench(ctx, args[1], os.Stdin, stdout); err != nil {
			return fail(err)
		}
		return 0
	default:
		fmt.Fprintf(stderr, "kcaudio: unknown command %q\n", args[0])
		return 2
	}
}

func measure(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("measure", flag.ContinueOnError)
	fs.SetOutput(stderr)
	n := fs.Int("n", 20, "clips to measure")
	asJSON := fs.Bool("json", false, "print the result as JSON")
	voice := fs.String("voice", audio.DefaultVoice, "espeak-ng voice")
	speed := fs.Int("speed", audio.DefaultSpeed, "words per minute")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	dir, err := os.MkdirTemp(scratch(), "kcaudio-measure-")
	if err != nil {
		fmt.Fprintln(stderr, "kcaudio:", err)
		return 1
	}
	defer os.RemoveAll(dir)
	r, err := audio.Measure(ctx, *n, audio.Synthesizer{Voice: *voice, Speed: *speed}, audio.Transcriber{TempDir: dir}, dir)
	if err != nil {
		fmt.Fprintln(stderr, "kcaudio:", err)
		return 1
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		if err := enc.Encode(r); err != nil {
			fmt.Fprintln(stderr, "kcaudio:", err)
			return 1
		}
		return 0
	}
	for _, t := range r.Trials {
		fmt.Fprintf(stdout, "%v\t%s\t%s\n", t.Recovered, t.Canary, strings.ReplaceAll(t.Transcript, "\n", " | "))
	}
	fmt.Fprintf(stdout, "recovered %d of %d (%.0f%%) voice %s speed %d\n", r.Recovered, r.Runs, 100*r.Rate, r.Voice, r.Speed)
	return 0
}

// bench runs the audio.BenchSpec read from spec (a file, "-" for stdin,
// or the JSON itself) and prints the results as one JSON array.
func bench(ctx context.Context, spec string, stdin io.Reader, stdout io.Writer) error {
	var data []byte
	var err error
	switch {
	case strings.HasPrefix(strings.TrimSpace(spec), "{"):
		data = []byte(spec)
	case spec == "-":
		data, err = io.ReadAll(stdin)
	default:
		data, err = os.ReadFile(spec)
	}
	if err != nil {
		return fmt.Errorf("bench spec: %w", err)
	}
	var s audio.BenchSpec
	if err := json.Unmarshal(data, &s); err != nil {
		return fmt.Errorf("bench spec: %w", err)
	}
	dir, err := os.MkdirTemp(scratch(), "kcaudio-bench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	res, err := audio.Bench(ctx, s, dir)
	if err != nil {
		return err
	}
	return json.NewEncoder(stdout).Encode(res)
}

// scratch is a writable folder: the temp folder, else $HOME (sandboxes have
// a read-only root and a writable /work).
func scratch() string {
	if f, err := os.CreateTemp("", "kcaudio-probe-"); err == nil {
		f.Close()
		os.Remove(f.Name())
		return ""
	}
	if h := os.Getenv("HOME"); h != "" {
		return h
	}
	return "."
}
