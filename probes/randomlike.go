package probes

import (
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"

	fsggml "github.com/ollama/ollama/fs/ggml"
)

// RandomLike writes to dst a GGUF with src's metadata (architecture,
// shapes, tokenizer, template) and every tensor replaced by seeded random
// float32 values: normal(0, std) for matrices, ones for vectors (norm
// weights). It is the random-weights control: the same architecture and
// tokens with nothing learnt. It takes 4 bytes per parameter on disk.
func RandomLike(src, dst string, seed uint64, std float64) error {
	f, err := os.Open(src)
	if err != nil {
		return fmt.Errorf("random weights: %w", err)
	}
	g, err := fsggml.Decode(f, -1)
	f.Close()
	if err != nil {
		return fmt.Errorf("random weights: %s: %w", src, err)
	}
	if std <= 0 {
		std = 0.02
	}
	var ts []*fsggml.Tensor
	for i, t := range g.Tensors().Items() {
		n := uint64(1)
		for _, d := range t.Shape {
			n *= d
		}
		ts = append(ts, &fsggml.Tensor{Name: t.Name, Kind: 0, Shape: t.Shape,
			WriterTo: &randomTensor{n: n, ones: len(t.Shape) == 1, std: std, seed: seed, stream: uint64(i)}})
	}
	out, err := os.Create(dst)
	if err != nil {
		return fmt.Errorf("random weights: %w", err)
	}
	if err := fsggml.WriteGGUF(out, g.KV(), ts); err != nil {
		out.Close()
		return fmt.Errorf("random weights: write %s: %w", dst, err)
	}
	return out.Close()
}

// randomTensor streams n float32 values; each tensor has its own stream so
// the parallel writers of WriteGGUF stay deterministic.
type randomTensor struct {
	n            uint64
	ones         bool
	std          float64
	seed, stream uint64
}

func (r *randomTensor) WriteTo(w io.Writer) (int64, error) {
	rng := rand.New(rand.NewPCG(r.seed, r.stream))
	buf := make([]byte, 0, 1<<16)
	var total int64
	for i := uint64(0); i < r.n; i++ {
		x := float32(1)
		if !r.ones {
			x = float32(rng.NormFloat64() * r.std)
		}
		buf = binary.LittleEndian.AppendUint32(buf, math.Float32bits(x))
		if len(buf) == cap(buf) || i == r.n-1 {
			n, err := w.Write(buf)
			total += int64(n)
			if err != nil {
				return total, err
			}
			buf = buf[:0]
		}
	}
	return total, nil
}
