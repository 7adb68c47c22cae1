package results

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/killchain/killchain/internal/rooted"
)

// AttackerFile keeps an adaptive attacker's calls and replies: one line
// per round of one cell (AttackerRound), appended and synced before the
// round's runs start, so a resumed study runs the same payloads.
const AttackerFile = "attacker.jsonl"

// Adaptive is the adaptive-attack fields of a run, on the runs of a grid
// with an attacker (round 0 included): there every field is written, and
// on every other run none is.
type Adaptive struct {
	Round    int    `json:"round"`
	Attacker string `json:"attacker"`
	// Feedback is the attacker's feedback mode: none, outcome, stage.
	Feedback string `json:"feedback"`
	// Payload is the id of the payload the run planted ("r2.1", or the
	// attack's name in round 0); Parent the payload it was derived from
	// ("" for none).
	Payload string `json:"payload"`
	Parent  string `json:"parent"`
}

// adaptiveField is where the decoder puts an adaptive key's value.
func adaptiveField(a *Adaptive, key string) any {
	switch key {
	case "round":
		return &a.Round
	case "attacker":
		return &a.Attacker
	case "feedback":
		return &a.Feedback
	case "payload":
		return &a.Payload
	}
	return &a.Parent
}

// AttackerPayload is one payload an attacker proposed.
type AttackerPayload struct {
	ID        string   `json:"id"`
	Family    string   `json:"family,omitempty"`
	Text      string   `json:"text"`
	Encodings []string `json:"encodings,omitempty"`
	Parent    string   `json:"parent,omitempty"`
}

// AttackerAsk is one call to the attacker: what it was sent, what it
// replied and why the reply was not used ("" when it was).
type AttackerAsk struct {
	Prompt       string `json:"prompt,omitempty"`
	Reply        string `json:"reply,omitempty"`
	InputTokens  int    `json:"input_tokens"`
	OutputTokens int    `json:"output_tokens"`
	Problem      string `json:"problem,omitempty"`
}

// AttackerRound is one line of attacker.jsonl: one round of one cell.
type AttackerRound struct {
	Loop     string `json:"loop"` // the cell, study.Run.Loop
	Grid     string `json:"grid"`
	Attacker string `json:"attacker"`
	Feedback string `json:"feedback"`
	Round    int    `json:"round"`
	// Asked is how many payloads were asked for; Payloads those proposed.
	Asked    int               `json:"asked"`
	Payloads []AttackerPayload `json:"payloads"`
	Asks     []AttackerAsk     `json:"asks,omitempty"`
	// Error is why the round has fewer payloads than asked (an attacker
	// error: its missing runs are recorded with error_kind "attacker").
	Error string `json:"error,omitempty"`
	// Stopped is set on a line that ends the cell early, "budget" when the
	// attacker's token budget was spent, "cost" when its cost budget was;
	// such a line holds no payloads.
	Stopped string `json:"stopped,omitempty"`
	// Cost is what the round's asks cost at the attacker model's price
	// (0 for the reference attacker or an unpriced model); the study's
	// cost limit counts it.
	Cost float64 `json:"cost,omitempty"`
}

// Tokens is what the round's asks consumed.
func (r AttackerRound) Tokens() int {
	n := 0
	for _, a := range r.Asks {
		n += a.InputTokens + a.OutputTokens
	}
	return n
}

// AppendAttacker appends one round to the folder's attacker.jsonl and
// syncs it. The caller serialises calls.
func AppendAttacker(dir string, r AttackerRound) error {
	line, err := json.Marshal(r)
	if err != nil {
		return fmt.Errorf("attacker round: %w", err)
	}
	err = withRoot(dir, func(root *rooted.Dir) error { return appendLines(root, AttackerFile, [][]byte{line}) })
	if err != nil {
		return fmt.Errorf("attacker round: %w", err)
	}
	return nil
}

// ReadAttacker reads the folder's attacker.jsonl in file order (none when
// it is absent). A last line without its newline is what a killed process
// left half-written: it is skipped, and its round is proposed again.
func ReadAttacker(dir string, fn func(AttackerRound) error) error {
	data, err := os.ReadFile(filepath.Join(dir, AttackerFile))
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("read %s: %w", AttackerFile, err)
	}
	if i := bytes.LastIndexByte(data, '\n'); i < len(data)-1 {
		data = data[:i+1]
	}
	for n, line := range bytes.Split(data, []byte("\n")) {
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		var r AttackerRound
		if err := json.Unmarshal(line, &r); err != nil {
			return fmt.Errorf("%s:%d: %w", AttackerFile, n+1, err)
		}
		if err := fn(r); err != nil {
			return err
		}
	}
	return nil
}
