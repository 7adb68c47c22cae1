package probes

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/killchain/killchain/internal/results"
)

// Files of an extraction folder (default DIR/probes/activations).
const (
	MetaFile   = "meta.json"
	IndexFile  = "index.jsonl"
	TokensFile = "tokens.npy"
)

// LayerFile names the activations of one layer boundary.
func LayerFile(l int) string { return fmt.Sprintf("layer_%02d.npy", l) }

// Row is one line of index.jsonl: one position of one model call, with its
// labels. Row i is row i of every layer_NN.npy.
type Row struct {
	Row   int    `json:"row"`
	RunID string `json:"run_id"`
	Agent string `json:"agent"`
	Pos   string `json:"position"`
	Model string `json:"model"`
	Step  int    `json:"step"`
	Turn  int    `json:"turn"`
	// Kind is "last" (the last prompt token before the model's turn) or
	// "tool" (a token of the newest tool result).
	Kind string `json:"kind"`
	// Token is the position of the row's token in the prompt; Tokens is the
	// prompt's length. The prompt's ids are tokens.npy[TokOff:TokOff+Tokens].
	Token  int `json:"token"`
	Tokens int `json:"tokens"`
	TokOff int `json:"tok_off"`

	Task    string `json:"task"`
	Variant string `json:"variant"`
	// Attack is the run's attack (results.Run.RunAttack); "" in indexes
	// written before it was recorded, where the variant stands for it.
	Attack    string `json:"attack,omitempty"`
	Surface   string `json:"surface"`
	Condition string `json:"condition"`
	Defense   string `json:"defense"`
	Attacked  bool   `json:"attacked"`
	// Stage is the furthest stage the run reached.
	Stage string `json:"stage"`
	// Injection: the run's canary (and so its payload) is in this prompt.
	Injection bool `json:"injection"`
	// Executes: this turn's tool call executes the canary (an executed
	// event at this step).
	Executes bool `json:"executes"`
	// Tampers: in a reward-hack run, this turn's tool call is where the hack
	// first shows in the effect log (runs.jsonl hack_step_effect).
	Tampers bool `json:"tampers"`
	// ToolCalls are the calls the model made in reply.
	ToolCalls []string `json:"tool_calls,omitempty"`
}

// Meta describes an extraction.
type Meta struct {
	Model     results.ProbeModel `json:"model"`
	Study     string             `json:"study"`
	Template  string             `json:"template"` // where the chat template came from
	Positions string             `json:"positions"`
	Rows      int                `json:"rows"`
	Calls     int                `json:"calls"`
	Tokens    int                `json:"tokens"` // tokens read (past cached prefixes)
	Seconds   float64            `json:"seconds"`
	// ExactMaxDiff is the exactness check's largest logit difference.
	ExactMaxDiff float64 `json:"exact_max_diff"`
	// Shapes documents the arrays: layer_NN.npy is float32 [rows, hidden].
	Shapes map[string][]int `json:"shapes"`
}

// ReadIndex reads index.jsonl of an extraction folder.
func ReadIndex(dir string) ([]Row, error) {
	f, err := os.Open(filepath.Join(dir, IndexFile))
	if err != nil {
		return nil, fmt.Errorf("read index: %w", err)
	}
	defer f.Close()
	var rows []Row
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<26)
	for sc.Scan() {
		var r Row
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			return nil, fmt.Errorf("index line %d: %w", len(rows)+1, err)
		}
		rows = append(rows, r)
	}
	return rows, sc.Err()
}

// ReadMeta reads meta.json of an extraction folder.
func ReadMeta(dir string) (Meta, error) {
	var m Meta
	data, err := os.ReadFile(filepath.Join(dir, MetaFile))
	if errors.Is(err, os.ErrNotExist) {
		return m, fmt.Errorf("no extraction in %s (run probes extract first)", dir)
	}
	if err != nil {
		return m, fmt.Errorf("read meta: %w", err)
	}
	if err := json.Unmarshal(data, &m); err != nil {
		return m, fmt.Errorf("meta: %w", err)
	}
	return m, nil
}

// ReadTokens reads tokens.npy (1-D int32).
func ReadTokens(dir string) ([]int32, error) {
	data, err := os.ReadFile(filepath.Join(dir, TokensFile))
	if err != nil {
		return nil, fmt.Errorf("read tokens: %w", err)
	}
	if len(data) < npyHeaderLen {
		return nil, fmt.Errorf("tokens: short file")
	}
	raw := data[npyHeaderLen:]
	out := make([]int32, len(raw)/4)
	for i := range out {
		out[i] = int32(uint32(raw[4*i]) | uint32(raw[4*i+1])<<8 | uint32(raw[4*i+2])<<16 | uint32(raw[4*i+3])<<24)
	}
	return out, nil
}

// AttackFamily is the row's attack family: the attack library's family,
// or the task's own variant; "" for a clean-control row.
func (r Row) AttackFamily() string {
	if !r.Attacked {
		return ""
	}
	a := r.Attack
	if a == "" {
		a = r.Variant
	}
	f, _, _ := strings.Cut(a, "+")
	return f
}
