//go:build cgo

// Package engine reads the residual stream of a local model through
// Ollama's own Go inference engine (ggml, cgo): the same code and the same
// GGUF weights that served the agent. It is the only package of killchain
// that needs cgo; cmd/killchain-probes links it, the main binary does not.
package engine

import (
	"context"
	"errors"
	"fmt"
	"math"
	"runtime"
	"sync"

	"github.com/hashicorp/go-hclog"
	"github.com/ollama/ollama/kvcache"
	"github.com/ollama/ollama/ml"
	_ "github.com/ollama/ollama/ml/backend/ggml" // registers the ggml backend
	"github.com/ollama/ollama/model"
	"github.com/ollama/ollama/model/input"
	_ "github.com/ollama/ollama/model/models" // registers every architecture
	"github.com/ollama/ollama/tokenizer"

	"github.com/killchain/killchain/internal/results"
	"github.com/killchain/killchain/probes"
)

// Options configure an Engine. Zero values take the defaults.
type Options struct {
	// Threads for the CPU backend; default: the number of CPUs.
	Threads int
	// Context is the KV cache size in tokens, the longest prompt that can
	// be read; default 16384.
	Context int
	// Batch is the number of tokens per forward pass; default 512.
	Batch int
	// GPULayers offloads that many layers to the first GPU the backend
	// finds (0: CPU only, -1: all).
	GPULayers int
	// FlashAttention selects ggml's fused attention kernel, as Ollama's
	// OLLAMA_FLASH_ATTENTION does; the exactness check compares the loop
	// with the model under the same setting.
	FlashAttention ml.FlashAttentionType
	Logger         hclog.Logger
}

// computeMu serializes forward passes of every Engine of the process:
// ggml's CPU backend keeps state shared between backends, and two engines
// computing at once were seen to corrupt each other's logits.
var computeMu sync.Mutex

// Engine is one loaded model with its layer loop. It is not safe for
// concurrent use; several engines may be used at once (their passes are
// serialized).
type Engine struct {
	path    string
	opts    Options
	m       model.Model
	tok     tokenizer.Tokenizer
	cache   kvcache.Cache
	loop    *loop
	version string
	arch    string
	hidden  int
	log     hclog.Logger
	// cached is the token sequence whose keys and values the cache holds;
	// a later prompt that shares a prefix with it reads only the rest.
	cached []int32
	// computed counts the tokens actually run through the model.
	computed int
}

var _ probes.Engine = (*Engine)(nil)

// Open loads the GGUF at path. An architecture with no adapter is an error
// naming the supported ones.
func Open(path string, opts Options) (e *Engine, err error) {
	if opts.Threads <= 0 {
		opts.Threads = runtime.NumCPU()
	}
	if opts.Context <= 0 {
		opts.Context = 16384
	}
	if opts.Batch <= 0 {
		opts.Batch = 512
	}
	if opts.Logger == nil {
		opts.Logger = hclog.NewNullLogger()
	}
	log := opts.Logger.Named("engine")
	// ggml reports allocation failures by panicking.
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("load %s: %v", path, r)
		}
	}()
	params := ml.BackendParams{AllocMemory: true, NumThreads: opts.Threads, FlashAttention: opts.FlashAttention}
	if opts.GPULayers != 0 {
		if params.GPULayers, err = gpuLayers(path, opts.GPULayers); err != nil {
			return nil, err
		}
	}
	m, err := model.New(path, params)
	if err != nil {
		return nil, fmt.Errorf("load %s: %w", path, err)
	}
	defer func() {
		if err != nil {
			m.Backend().Close()
		}
	}()
	cfg := m.Backend().Config()
	arch := cfg.Architecture()
	ad, err := adapterFor(arch)
	if err != nil {
		return nil, err
	}
	if err := m.Backend().Load(context.Background(), func(float32) {}); err != nil {
		return nil, fmt.Errorf("load %s weights: %w", path, err)
	}
	tok, ok := m.(tokenizer.Tokenizer)
	if !ok {
		return nil, fmt.Errorf("model %s has no tokenizer", arch)
	}
	cache := m.Config().Cache
	if cache == nil {
		return nil, fmt.Errorf("model %s has no kv cache", arch)
	}
	cache.Init(m.Backend(), ml.DTypeF16, 1, opts.Context, opts.Batch)
	l, err := ad.build(m, cfg)
	if err != nil {
		return nil, err
	}
	e = &Engine{
		path: path, opts: opts, m: m, tok: tok, cache: cache, loop: l, version: ad.version,
		arch: arch, hidden: int(cfg.Uint("embedding_length")), log: log,
	}
	log.Debug("model loaded", "path", path, "arch", arch, "layers", l.layers, "hidden", e.hidden, "threads", opts.Threads)
	return e, nil
}

// Close frees the model.
func (e *Engine) Close() error {
	e.cache.Close()
	e.m.Backend().Close()
	return nil
}

// Info describes the model.
func (e *Engine) Info() results.ProbeModel {
	return results.ProbeModel{Path: e.path, Arch: e.arch, Adapter: e.version, Layers: e.loop.layers, Hidden: e.hidden}
}

// Tokenize encodes a rendered prompt the way the runner does: special
// tokens are parsed, BOS added where the model asks for it.
func (e *Engine) Tokenize(prompt string) ([]int32, error) {
	ids, err := e.tok.Encode(prompt, true)
	if err != nil {
		return nil, fmt.Errorf("tokenize: %w", err)
	}
	return ids, nil
}

// Decode returns the text of token ids.
func (e *Engine) Decode(ids []int32) (string, error) {
	s, err := e.tok.Decode(ids)
	if err != nil {
		return "", fmt.Errorf("decode: %w", err)
	}
	return s, nil
}

// Forward reads tokens and returns, for each layer boundary (0 =
// embeddings, i = after decoder layer i), the residual stream at the
// positions in keep, as len(keep) rows of Hidden floats. Positions index
// tokens and must be increasing. Tokens shared with the previous call's
// prefix are not recomputed: the cache still holds them.
func (e *Engine) Forward(tokens []int32, keep []int) ([][]float32, error) {
	states, _, err := e.forward(tokens, keep, false)
	return states, err
}

// CheckExact runs tokens twice from an empty cache, once through the
// model's own Forward and once through the layer loop, and returns the
// largest absolute difference of their logits at the last position.
func (e *Engine) CheckExact(tokens []int32) (float64, error) {

	if len(tokens) == 0 {
		return 0, errors.New("check: no tokens")
	}
	keep := []int{len(tokens) - 1}
	if err := e.reset(); err != nil {
		return 0, err
	}
	_, want, err := e.forward(tokens, keep, true)
	if err != nil {
		return 0, fmt.Errorf("check: model forward: %w", err)
	}
	if err := e.reset(); err != nil {
		return 0, err
	}
	_, got, err := e.forward(tokens, keep, false)
	if err != nil {
		return 0, fmt.Errorf("check: layer loop: %w", err)
	}
	if len(got) != len(want) || len(got) == 0 {
		return 0, fmt.Errorf("check: %d logits from the loop, %d from the model", len(got), len(want))
	}
	var d float64
	for i := range got {
		d = math.Max(d, math.Abs(float64(got[i]-want[i])))
	}
	return d, nil
}

// reset empties the cache.
func (e *Engine) reset() error {
	e.cached = nil
	if err := e.cache.Remove(0, 0, math.MaxInt32); err != nil {
		return fmt.Errorf("clear cache: %w", err)
	}
	return nil
}

// forward feeds the tokens past the cached prefix in batches. With native,
// it runs the model's own Forward and returns only logits; otherwise the
// layer loop, returning the kept states and the logits of the last kept
// position.
func (e *Engine) forward(tokens []int32, keep []int, native bool) (states [][]float32, logits []float32, err error) {
	computeMu.Lock()
	defer computeMu.Unlock()
	if len(tokens) > e.opts.Context {
		return nil, nil, fmt.Errorf("prompt of %d tokens is longer than the context of %d (raise --num-ctx)", len(tokens), e.opts.Context)
	}
	for i, k := range keep {
		if k < 0 || k >= len(tokens) || (i > 0 && k <= keep[i-1]) {
			return nil, nil, fmt.Errorf("keep positions must be increasing and within the %d tokens", len(tokens))
		}
	}
	start := commonPrefix(e.cached, tokens)
	if len(keep) > 0 && start > keep[0] {
		start = keep[0]
	}
	if start == len(tokens) { // the whole prompt is cached: read its last token again
		start--
	}
	if err := e.cache.Remove(0, int32(start), math.MaxInt32); err != nil {
		// Some caches cannot cut a sequence: start over.
		if err := e.reset(); err != nil {
			return nil, nil, err
		}
		start = 0
	}
	e.cached = nil
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("forward: %v", r)
		}
	}()
	states = make([][]float32, e.loop.layers+1)
	for i := range states {
		states[i] = make([]float32, 0, len(keep)*e.hidden)
	}
	ki := 0
	for ki < len(keep) && keep[ki] < start {
		ki++
	}
	for lo := start; lo < len(tokens); lo += e.opts.Batch {
		hi := min(lo+e.opts.Batch, len(tokens))
		var rows []int32
		for ; ki < len(keep) && keep[ki] < hi; ki++ {
			rows = append(rows, int32(keep[ki]-lo))
		}
		kept := len(rows) > 0
		if !kept {
			rows = []int32{int32(hi - lo - 1)} // a pass must output something
		}
		e.computed += hi - lo
		got, lg, err := e.batch(tokens[lo:hi], lo, rows, native)
		if err != nil {
			return nil, nil, err
		}
		if kept && !native {
			for l := range states {
				states[l] = append(states[l], got[l]...)
			}
		}
		if hi == len(tokens) {
			n := len(lg) / len(rows)
			logits = lg[len(lg)-n:]
		}
	}
	e.cached = append([]int32(nil), tokens...)
	return states, logits, nil
}

// batch runs one forward pass over toks at positions from pos; rows are
// the batch rows to output. It returns the states per layer boundary (nil
// when native) and the logits of the output rows.
func (e *Engine) batch(toks []int32, pos int, rows []int32, native bool) ([][]float32, []float32, error) {
	ctx := e.m.Backend().NewContext()
	defer ctx.Close()
	positions := make([]int32, len(toks))
	seqs := make([]int, len(toks))
	for i := range toks {
		positions[i] = int32(pos + i)
	}
	b := input.Batch{
		Inputs:    ctx.Input().FromInts(toks, len(toks)),
		Outputs:   ctx.Input().FromInts(rows, len(rows)),
		Positions: positions,
		Sequences: seqs,
	}
	ctx.SetBatchSize(len(toks))
	if native {
		t, err := model.Forward(ctx, e.m, b)
		if err != nil {
			return nil, nil, err
		}
		ctx.Compute(t)
		return nil, t.Floats(), nil
	}
	if err := e.cache.StartForward(ctx, b, false); err != nil {
		return nil, nil, err
	}
	positionsT := ctx.Input().FromInts(positions, len(positions))
	kept, logits := e.loop.forward(ctx, e.cache, b.Inputs, positionsT, b.Outputs)
	ctx.Forward(append(kept, logits)...)
	ctx.Compute(append(kept, logits)...)
	out := make([][]float32, len(kept))
	for i, t := range kept {
		out[i] = t.Floats()
	}
	return out, logits.Floats(), nil
}

// commonPrefix is the length of the longest common prefix of a and b.
func commonPrefix(a, b []int32) int {
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	return n
}
