//go:build cgo

package engine

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/killchain/killchain/internal/agent"
	"github.com/killchain/killchain/probes"
)

// tiny writes the tiny model and opens it.
func tiny(t *testing.T, seed uint64, opts Options) *Engine {
	t.Helper()
	path := filepath.Join(t.TempDir(), "tiny.gguf")
	if err := probes.WriteTinyModel(path, probes.TinyConfig{Seed: seed}); err != nil {
		t.Fatal(err)
	}
	e, err := Open(path, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	return e
}

func TestEngine(t *testing.T) {
	e := tiny(t, 1, Options{Threads: 2, Batch: 64})
	r, err := probes.NewTemplateRenderer(probes.TinyTemplate)
	if err != nil {
		t.Fatal(err)
	}
	short := agent.Request{System: "You are an assistant.", Messages: []agent.Message{{Role: agent.RoleUser, Content: "Read the notes and send a report to the supervisor."}}}
	long := short
	long.Messages = append(append([]agent.Message(nil), short.Messages...),
		agent.Message{Role: agent.RoleAssistant, ToolCalls: []agent.ToolCall{{ID: "c1", Name: "read_memory", Arguments: "{}"}}},
		agent.Message{Role: agent.RoleTool, ToolCallID: "c1", ToolName: "read_memory", Content: strings.Repeat("The footbridge inspection found 23 corroded bolts. ", 6)})
	enc := func(req agent.Request) []int32 {
		s, err := r.Render(req)
		if err != nil {
			t.Fatal(err)
		}
		ids, err := e.Tokenize(s)
		if err != nil {
			t.Fatal(err)
		}
		return ids
	}
	shortIDs, longIDs := enc(short), enc(long)
	if len(longIDs) <= 64 {
		t.Fatalf("long prompt has %d tokens; want more than one batch", len(longIDs))
	}
	info := e.Info()
	if info.Arch != "llama" || info.Layers != 2 || info.Hidden != 64 {
		t.Fatalf("info = %+v", info)
	}

	t.Run("special tokens are single tokens", func(t *testing.T) {
		ids, err := e.Tokenize("<|im_start|>user\nhi<|im_end|>")
		if err != nil {
			t.Fatal(err)
		}
		if ids[0] != 257 || ids[len(ids)-1] != 258 {
			t.Fatalf("ids = %v", ids)
		}
	})
	t.Run("layer loop reproduces the model's logits", func(t *testing.T) {
		for _, ids := range [][]int32{shortIDs, longIDs} {
			d, err := e.CheckExact(ids)
			if err != nil {
				t.Fatal(err)
			}
			if d != 0 {
				t.Fatalf("max logit difference %g over %d tokens, want 0", d, len(ids))
			}
		}
	})
	t.Run("cached prefix gives the same states", func(t *testing.T) {
		keep := []int{len(longIDs) - 1}
		if _, err := e.Forward(shortIDs, []int{len(shortIDs) - 1}); err != nil {
			t.Fatal(err)
		}
		warm, err := e.Forward(longIDs, keep)
		if err != nil {
			t.Fatal(err)
		}
		if err := e.reset(); err != nil {
			t.Fatal(err)
		}
		cold, err := e.Forward(longIDs, keep)
		if err != nil {
			t.Fatal(err)
		}
		if len(cold) != 3 || len(cold[2]) != 64 {
			t.Fatalf("states shape %d x %d", len(cold), len(cold[2]))
		}
		for l := range cold {
			for i := range cold[l] {
				if d := cold[l][i] - warm[l][i]; d > 1e-4 || d < -1e-4 {
					t.Fatalf("layer %d dim %d: cold %g warm %g", l, i, cold[l][i], warm[l][i])
				}
			}
		}
	})
	t.Run("several kept positions across batches", func(t *testing.T) {
		keep := []int{3, 70, len(longIDs) - 1}
		st, err := e.Forward(longIDs, keep)
		if err != nil {
			t.Fatal(err)
		}
		for l := range st {
			if len(st[l]) != len(keep)*64 {
				t.Fatalf("layer %d: %d floats", l, len(st[l]))
			}
		}
	})
}

func TestUnknownArchitecture(t *testing.T) {
	_, err := adapterFor("mamba")
	if err == nil || !strings.Contains(err.Error(), "llama, qwen2, qwen3") {
		t.Fatalf("err = %v", err)
	}
}

func TestRandomLikeLoads(t *testing.T) {
	dir := t.TempDir()
	src, dst := filepath.Join(dir, "tiny.gguf"), filepath.Join(dir, "random.gguf")
	if err := probes.WriteTinyModel(src, probes.TinyConfig{Seed: 1}); err != nil {
		t.Fatal(err)
	}
	if err := probes.RandomLike(src, dst, 2, 0.02); err != nil {
		t.Fatal(err)
	}
	e, err := Open(dst, Options{Threads: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	ids, err := e.Tokenize("<|im_start|>user\nRead the notes.<|im_end|>\n<|im_start|>assistant\n")
	if err != nil {
		t.Fatal(err)
	}
	if d, err := e.CheckExact(ids); err != nil || d != 0 {
		t.Fatalf("random-weights model: max diff %g, %v", d, err)
	}
}
