package probes

import (
	"bytes"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/killchain/killchain/internal/stats"
)

func TestThresholdAndWilson(t *testing.T) {
	clean := make([]float64, 200)
	for i := range clean {
		clean[i] = float64(i)
	}
	cases := []struct {
		name  string
		clean []float64
		fpr   float64
		want  float64
	}{
		{"1% of 200 clean rows above", clean, 0.01, 198},
		{"fewer than 1/fpr rows: the largest", clean[:10], 0.01, 9},
		{"no clean rows: never fires", nil, 0.01, math.Inf(1)},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := ThresholdAtFPR(c.clean, c.fpr); got != c.want {
				t.Fatalf("threshold = %v, want %v", got, c.want)
			}
		})
	}
	t.Run("wilson", func(t *testing.T) {
		iv := wilson(5, 10)
		if iv.Value != 0.5 || math.Abs(iv.Lo-0.2366) > 1e-4 || math.Abs(iv.Hi-0.7634) > 1e-4 || iv.N != 10 {
			t.Fatalf("wilson(5, 10) = %+v", iv)
		}
	})
	t.Run("wilson of no rows", func(t *testing.T) {
		// The rate is undefined, the interval stats.Wilson's whole range.
		iv := wilson(0, 0)
		if !math.IsNaN(iv.Value) || iv.Lo != 0 || iv.Hi != 1 || iv.N != 0 {
			t.Fatalf("wilson(0, 0) = %+v, want NaN in [0, 1]", iv)
		}
		b, err := json.Marshal(iv)
		if err != nil || string(b) != `{"value":null,"lo":0,"hi":1,"n":0}` {
			t.Fatalf("wilson(0, 0) in train.json = %s (%v)", b, err)
		}
	})
}

func TestNpyRoundTrip(t *testing.T) {
	path := filepath.Join(t.TempDir(), "x.npy")
	w, err := CreateNpy(path, "<f4", 3)
	if err != nil {
		t.Fatal(err)
	}
	for _, row := range [][]float32{{1, 2, 3}, {4, 5, 6}} {
		if err := w.WriteFloats(row); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.WriteFloats([]float32{1, 2}); err == nil {
		t.Fatal("a partial row was accepted")
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	data, rows, cols, err := ReadNpyFloats(path)
	if err != nil {
		t.Fatal(err)
	}
	if rows != 2 || cols != 3 || data[5] != 6 {
		t.Fatalf("read %d x %d: %v", rows, cols, data)
	}
	raw, _ := os.ReadFile(path)
	if !bytes.Contains(raw[:npyHeaderLen], []byte("'shape': (2, 3)")) || raw[npyHeaderLen-1] != '\n' || len(raw) != npyHeaderLen+24 {
		t.Fatalf("header %q", raw[:npyHeaderLen])
	}
}

func TestFitProbe(t *testing.T) {
	// Separable on feature 0, noise on feature 1.
	var x []float32
	var y []bool
	for i := range 200 {
		pos := i%2 == 0
		f0 := float32(-1)
		if pos {
			f0 = 1
		}
		x = append(x, f0+float32(i%7)*0.05, float32(i%13))
		y = append(y, pos)
	}
	p, err := FitProbe(x, 2, y, DefaultL2)
	if err != nil {
		t.Fatal(err)
	}
	if a := stats.AUC(p.Score(x), y); a != 1 {
		t.Fatalf("AUROC on separable rows %v", a)
	}
	if math.Abs(p.W[0]) < 5*math.Abs(p.W[1]) {
		t.Fatalf("weights %v: the signal feature should dominate", p.W)
	}
	t.Run("the penalty is l2 on the mean log-loss", func(t *testing.T) {
		// At the optimum the gradient of mean log-loss + l2/2·|w|² is 0.
		g := make([]float64, 3)
		for i, s := range p.Score(x) {
			r := 1 / (1 + math.Exp(-s))
			if y[i] {
				r--
			}
			for j := range 2 {
				g[j] += r * (float64(x[i*2+j]) - p.Mean[j]) / p.Std[j] / float64(len(y))
			}
			g[2] += r / float64(len(y))
		}
		for j := range 2 {
			g[j] += DefaultL2 * p.W[j]
		}
		for j, v := range g {
			if math.Abs(v) > 1e-6 {
				t.Errorf("gradient[%d] = %v at the fit, want 0", j, v)
			}
		}
	})
	t.Run("a saved probe scores as fitted", func(t *testing.T) {
		b, err := json.Marshal(p)
		if err != nil {
			t.Fatal(err)
		}
		var back Probe
		if err := json.Unmarshal(b, &back); err != nil {
			t.Fatal(err)
		}
		if got, want := back.Score(x), p.Score(x); !slices.Equal(got, want) {
			t.Fatalf("scores after a JSON round trip differ: %v against %v", got[:3], want[:3])
		}
	})
}

func TestTinyModelIsDeterministic(t *testing.T) {
	dir := t.TempDir()
	read := func(name string, seed uint64) []byte {
		p := filepath.Join(dir, name)
		if err := WriteTinyModel(p, TinyConfig{Seed: seed}); err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	a, b, c := read("a.gguf", 1), read("b.gguf", 1), read("c.gguf", 2)
	if !bytes.Equal(a, b) {
		t.Fatal("same seed, different files")
	}
	if bytes.Equal(a, c) || len(a) != len(c) {
		t.Fatal("another seed should change the weights, not the shapes")
	}
	if len(a) > 2<<20 {
		t.Fatalf("tiny model is %d bytes", len(a))
	}
	kv, err := readKV(filepath.Join(dir, "a.gguf"))
	if err != nil {
		t.Fatal(err)
	}
	if tmpl, err := TemplateForGGUF(kv); err != nil || tmpl != TinyTemplate {
		t.Fatalf("template from the GGUF: %v", err)
	}
	t.Run("random weights like it", func(t *testing.T) {
		dst := filepath.Join(dir, "r.gguf")
		if err := RandomLike(filepath.Join(dir, "a.gguf"), dst, 3, 0.02); err != nil {
			t.Fatal(err)
		}
		r, _ := os.ReadFile(dst)
		if math.Abs(float64(len(r)-len(a))) > 1024 || bytes.Equal(r, a) {
			t.Fatalf("random-weights copy: %d bytes vs %d", len(r), len(a))
		}
	})
}

func TestFromLine(t *testing.T) {
	cases := []struct {
		name, modelfile, want string
		err                   bool
	}{
		{"blob", "# Modelfile\nFROM /usr/share/ollama/.ollama/models/blobs/sha256-abc\nTEMPLATE x\n", "/usr/share/ollama/.ollama/models/blobs/sha256-abc", false},
		{"name only", "FROM qwen3:8b\n", "", true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := fromLine(c.modelfile)
			if (err != nil) != c.err || got != c.want {
				t.Fatalf("fromLine = %q, %v", got, err)
			}
		})
	}
}
