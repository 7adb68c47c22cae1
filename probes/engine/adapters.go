//go:build cgo

package engine

import (
	"fmt"
	"sort"
	"strings"

	"github.com/ollama/ollama/fs"
	"github.com/ollama/ollama/kvcache"
	"github.com/ollama/ollama/ml"
	"github.com/ollama/ollama/ml/nn"
	"github.com/ollama/ollama/model"
	"github.com/ollama/ollama/model/models/llama"
	"github.com/ollama/ollama/model/models/qwen2"
	"github.com/ollama/ollama/model/models/qwen3"
)

// loop is one architecture's forward pass taken apart: the embedding, each
// decoder layer and the head, so that the residual stream between layers
// can be read. It must compute exactly what the model's own Forward does;
// Engine.CheckExact verifies that once per model.
type loop struct {
	embed  func(ctx ml.Context, inputs ml.Tensor) ml.Tensor
	layers int
	// layer runs decoder layer i; outputs is non-nil only on the last layer,
	// as in the models' own Forward.
	layer  func(ctx ml.Context, i int, h, positions, outputs ml.Tensor) ml.Tensor
	norm   *nn.RMSNorm
	eps    float32
	output *nn.Linear
}

// adapter builds the loop of one architecture from a loaded model.
type adapter struct {
	// version changes whenever the loop changes; it is stored with every
	// extraction so that activations of different loops are never mixed.
	version string
	build   func(m model.Model, c fs.Config) (*loop, error)
}

// adapters are the supported architectures, by general.architecture.
var adapters = map[string]adapter{
	"llama": {version: "llama/1", build: func(m model.Model, c fs.Config) (*loop, error) {
		lm, ok := m.(*llama.Model)
		if !ok {
			return nil, fmt.Errorf("llama adapter: model is %T", m)
		}
		cache := lm.Config().Cache
		return &loop{
			embed:  func(ctx ml.Context, in ml.Tensor) ml.Tensor { return lm.TokenEmbedding.Forward(ctx, in) },
			layers: len(lm.Layers),
			layer: func(ctx ml.Context, i int, h, pos, out ml.Tensor) ml.Tensor {
				return lm.Layers[i].Forward(ctx, h, pos, out, cache, &lm.Options)
			},
			norm: lm.OutputNorm, eps: c.Float("attention.layer_norm_rms_epsilon"), output: lm.Output,
		}, nil
	}},
	"qwen2": {version: "qwen2/1", build: func(m model.Model, c fs.Config) (*loop, error) {
		qm, ok := m.(*qwen2.Model)
		if !ok {
			return nil, fmt.Errorf("qwen2 adapter: model is %T", m)
		}
		cache := qm.Config().Cache
		return &loop{
			embed:  func(ctx ml.Context, in ml.Tensor) ml.Tensor { return qm.TokenEmbedding.Forward(ctx, in) },
			layers: len(qm.Layers),
			layer: func(ctx ml.Context, i int, h, pos, out ml.Tensor) ml.Tensor {
				return qm.Layers[i].Forward(ctx, h, pos, out, cache, &qm.Options)
			},
			norm: qm.OutputNorm, eps: c.Float("attention.layer_norm_rms_epsilon"), output: qm.Output,
		}, nil
	}},
	"qwen3": {version: "qwen3/1", build: func(m model.Model, c fs.Config) (*loop, error) {
		qm, ok := m.(*qwen3.Model)
		if !ok {
			return nil, fmt.Errorf("qwen3 adapter: model is %T", m)
		}
		cache := qm.Config().Cache
		return &loop{
			embed:  func(ctx ml.Context, in ml.Tensor) ml.Tensor { return qm.TokenEmbedding.Forward(ctx, in) },
			layers: len(qm.Layers),
			layer: func(ctx ml.Context, i int, h, pos, out ml.Tensor) ml.Tensor {
				return qm.Layers[i].Forward(ctx, h, pos, out, cache, qm.Options)
			},
			norm: qm.OutputNorm, eps: c.Float("attention.layer_norm_rms_epsilon"), output: qm.Output,
		}, nil
	}},
}

// Supported lists the architectures extraction can read, sorted.
func Supported() []string {
	names := make([]string, 0, len(adapters))
	for n := range adapters {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// adapterFor returns the adapter of an architecture, or an error naming the
// supported ones.
func adapterFor(arch string) (adapter, error) {
	a, ok := adapters[arch]
	if !ok {
		return adapter{}, fmt.Errorf("architecture %q has no probe adapter; supported: %s", arch, strings.Join(Supported(), ", "))
	}
	return a, nil
}

// forward runs the loop over one batch whose cache slot is already started.
// keep indexes the batch rows whose residual stream is read; it is also the
// outputs of the last layer, so logits come back for those rows only. It
// returns one tensor per layer boundary (0 = embeddings, i = after layer i)
// and the logits; nothing is computed until the caller computes them.
func (l *loop) forward(ctx ml.Context, cache kvcache.Cache, inputs, positions, keep ml.Tensor) ([]ml.Tensor, ml.Tensor) {
	h := l.embed(ctx, inputs)
	states := make([]ml.Tensor, 0, l.layers+1)
	// Each kept tensor is a fresh node (Rows) nothing else consumes: ggml
	// reuses the buffers of intermediate nodes.
	states = append(states, h.Rows(ctx, keep))
	for i := range l.layers {
		cache.SetLayer(i)
		var out ml.Tensor
		if i == l.layers-1 {
			out = keep
		}
		h = l.layer(ctx, i, h, positions, out)
		if out != nil {
			states = append(states, h.Contiguous(ctx))
		} else {
			states = append(states, h.Rows(ctx, keep))
		}
	}
	logits := l.output.Forward(ctx, l.norm.Forward(ctx, h, l.eps))
	return states, logits
}
