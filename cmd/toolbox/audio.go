package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/killchain/killchain/sandbox"
)

// audioTimeout bounds one synthesis or transcription.
const audioTimeout = 2 * time.Minute

// expand substitutes {key} placeholders in each argument of argv.
func expand(argv []string, vars map[string]string) []string {
	out := make([]string, len(argv))
	for i, a := range argv {
		for k, v := range vars {
			a = strings.ReplaceAll(a, "{"+k+"}", v)
		}
		out[i] = a
	}
	return out
}

// runArgv runs argv with an empty environment and returns its stdout.
func runArgv(argv []string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(context.Background(), audioTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Env = []string{"PATH=/usr/local/bin:/usr/bin:/bin", "HOME=/work"}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		msg := strings.TrimSpace(stderr.String())
		if len(msg) > 500 {
			msg = msg[len(msg)-500:]
		}
		return nil, fmt.Errorf("%s: %w: %s", filepath.Base(argv[0]), err, msg)
	}
	return out, nil
}

// speak synthesizes text into the WAV file rel under the state folder with
// the -synth argv ({text}, {out}).
func (s *server) speak(text, rel string) error {
	if s.cfg.synth == "" {
		return errors.New("speech synthesis is not available in this sandbox image")
	}
	out, err := sandbox.Join(s.cfg.state, rel)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
		return fmt.Errorf("speak %s: %w", rel, err)
	}
	argv := expand(strings.Fields(s.cfg.synth), map[string]string{"text": text, "out": out})
	if _, err := runArgv(argv); err != nil {
		return fmt.Errorf("speak %s: %w", rel, err)
	}
	return nil
}

// execTranscriber runs the -asr argv ({in}) and reads the transcript from its
// stdout: plain text, or JSON lines whose "t" field holds the text (the form
// pocketsphinx prints).
type execTranscriber struct{ argv []string }

func (t execTranscriber) Transcribe(path string) (string, error) {
	out, err := runArgv(expand(t.argv, map[string]string{"in": path}))
	if err != nil {
		return "", err
	}
	return transcriptText(out), nil
}

func transcriptText(out []byte) string {
	// Plain lines stay lines (a transcriber may print one pass per line);
	// pocketsphinx JSON segments of one pass are joined with spaces.
	var sb strings.Builder
	lastJSON := false
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" {
			continue
		}
		var js struct {
			T *string `json:"t"`
		}
		isJSON := strings.HasPrefix(line, "{") && json.Unmarshal([]byte(line), &js) == nil && js.T != nil
		if isJSON {
			line = strings.TrimSpace(*js.T)
		}
		if line == "" {
			continue
		}
		if sb.Len() > 0 {
			if isJSON && lastJSON {
				sb.WriteByte(' ')
			} else {
				sb.WriteByte('\n')
			}
		}
		sb.WriteString(line)
		lastJSON = isJSON
	}
	return sb.String()
}
