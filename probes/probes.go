// Package probes replays a study's model calls through a local model,
// stores the residual stream at every layer as plain .npy arrays with an
// index and labels, trains linear probes on them (leave-one-task-out and
// 5-fold, with controls), scores new studies with a saved probe and writes
// the report section. It has no cgo: the engine that reads activations
// lives in probes/engine and is linked only into cmd/killchain-probes.
package probes

import "github.com/killchain/killchain/internal/results"

// Device is one device the engine's backend can run on.
type Device struct {
	ID          string `json:"id"`
	Library     string `json:"library"`
	Name        string `json:"name"`
	Description string `json:"description"`
	TotalMemory uint64 `json:"total_memory"`
	FreeMemory  uint64 `json:"free_memory"`
}

// Engine reads a model's residual stream. probes/engine implements it
// over Ollama's engine; tests use fakes.
type Engine interface {
	Info() results.ProbeModel
	// Tokenize encodes a rendered prompt as the model's runner would.
	Tokenize(prompt string) ([]int32, error)
	// Decode returns the text of token ids (byte-exact for byte-level BPE).
	Decode(ids []int32) (string, error)
	// Forward returns, per layer boundary, len(keep) rows of Hidden
	// floats: the residual stream at the token positions in keep.
	Forward(tokens []int32, keep []int) ([][]float32, error)
	// CheckExact returns the largest absolute difference between the
	// model's own logits and the layer loop's at the last token.
	CheckExact(tokens []int32) (float64, error)
	Close() error
}
