package probes

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"strings"

	fsggml "github.com/ollama/ollama/fs/ggml"
)

// TinyConfig shapes the generated test model.
type TinyConfig struct {
	Seed   uint64
	Layers int // decoder layers; default 2
	Hidden int // embedding length; default 64
	// Std is the standard deviation of the random weights; default 0.08.
	Std float64
}

func (c TinyConfig) withDefaults() TinyConfig {
	if c.Layers <= 0 {
		c.Layers = 2
	}
	if c.Hidden <= 0 {
		c.Hidden = 64
	}
	if c.Std <= 0 {
		c.Std = 0.08
	}
	return c
}

// tinySpecials are the tiny model's special tokens: ChatML and tool tags.
var tinySpecials = []string{"<|endoftext|>", "<|im_start|>", "<|im_end|>", "<tool_call>", "</tool_call>", "<tool_response>", "</tool_response>"}

// tinyWords are whole-word tokens added to the byte vocabulary so prompts
// take fewer tokens (a word in the vocabulary is one token).
var tinyWords = strings.Fields(`the a an and or of to in on for with from by at is are was were be this that
it as not no you your we our they their he she his her its all any every each one two three
read write memory note notes report reports send e-mail email mail summary summarize supervisor
team task tool tools call calls result results search page web agent user assistant system
data record records admin delete code filing include secret token include please must should
only work file files function functions name arguments argument json object type string
description properties required key value message messages instruction instructions
ignore previous override important urgent attention copy address`)

// TinyModelKV is the metadata key holding the tiny model's Go chat
// template (the GGUF's tokenizer.chat_template holds its Jinja form).
const TinyModelKV = "tokenizer.killchain.template"

// WriteTinyModel writes a small llama GGUF with random weights (seeded,
// deterministic): a byte-level BPE tokenizer with whole-word tokens, ChatML
// and tool tokens as special tokens, and a chat template. It loads in
// milliseconds and is what the tests and `probes tiny-model` use; with
// another seed it is the random-weights control of itself.
func WriteTinyModel(path string, c TinyConfig) error {
	c = c.withDefaults()
	if c.Hidden%16 != 0 {
		return fmt.Errorf("tiny model: hidden %d is not a multiple of 16", c.Hidden)
	}
	vocab, types, merges := tinyVocab()
	heads, kvHeads := c.Hidden/16, c.Hidden/32
	headDim := c.Hidden / heads
	ffn := 2 * c.Hidden
	kv := fsggml.KV{
		"general.architecture":                   "llama",
		"general.name":                           fmt.Sprintf("killchain-tiny-%d", c.Seed),
		"general.alignment":                      uint32(32),
		"llama.block_count":                      uint32(c.Layers),
		"llama.context_length":                   uint32(32768),
		"llama.embedding_length":                 uint32(c.Hidden),
		"llama.feed_forward_length":              uint32(ffn),
		"llama.attention.head_count":             uint32(heads),
		"llama.attention.head_count_kv":          uint32(max(kvHeads, 1)),
		"llama.attention.layer_norm_rms_epsilon": float32(1e-5),
		"llama.rope.freq_base":                   float32(10000),
		"llama.rope.dimension_count":             uint32(headDim),
		"tokenizer.ggml.model":                   "gpt2",
		"tokenizer.ggml.pre":                     "default",
		"tokenizer.ggml.tokens":                  vocab,
		"tokenizer.ggml.token_type":              types,
		"tokenizer.ggml.merges":                  merges,
		"tokenizer.ggml.bos_token_id":            uint32(256),
		"tokenizer.ggml.eos_token_id":            uint32(258),
		"tokenizer.ggml.add_bos_token":           false,
		"tokenizer.chat_template":                tinyJinja,
		TinyModelKV:                              TinyTemplate,
	}
	rng := rand.New(rand.NewPCG(c.Seed, 0x6b696c6c636861))
	h, v := uint64(c.Hidden), uint64(len(vocab))
	kvDim := uint64(max(kvHeads, 1) * headDim)
	var ts []*fsggml.Tensor
	add := func(name string, ones bool, shape ...uint64) {
		n := uint64(1)
		for _, d := range shape {
			n *= d
		}
		buf := make([]byte, 4*n)
		for i := range n {
			x := float32(1)
			if !ones {
				x = float32(rng.NormFloat64() * c.Std)
			}
			binary.LittleEndian.PutUint32(buf[4*i:], math.Float32bits(x))
		}
		ts = append(ts, &fsggml.Tensor{Name: name, Kind: 0, Shape: shape, WriterTo: bytes.NewReader(buf)})
	}
	// Embeddings larger than the other weights, so that each token's
	// identity survives the residual stream.
	add("token_embd.weight", false, h, v)
	for i := range c.Layers {
		p := fmt.Sprintf("blk.%d.", i)
		add(p+"attn_norm.weight", true, h)
		add(p+"attn_q.weight", false, h, h)
		add(p+"attn_k.weight", false, h, kvDim)
		add(p+"attn_v.weight", false, h, kvDim)
		add(p+"attn_output.weight", false, h, h)
		add(p+"ffn_norm.weight", true, h)
		add(p+"ffn_gate.weight", false, h, uint64(ffn))
		add(p+"ffn_up.weight", false, h, uint64(ffn))
		add(p+"ffn_down.weight", false, uint64(ffn), h)
	}
	add("output_norm.weight", true, h)
	add("output.weight", false, h, v)

	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("tiny model: %w", err)
	}
	if err := fsggml.WriteGGUF(f, kv, ts); err != nil {
		f.Close()
		return fmt.Errorf("tiny model: write %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("tiny model: %w", err)
	}
	return nil
}

// tinyVocab is the 256 byte tokens in GPT-2's byte-to-rune mapping (as
// Ollama's BPE encoder maps them), the special tokens, merges of letter
// pairs (a space and a letter too), then whole words, each bare and with a
// leading space. Words and pairs roughly halve the tokens of a prompt.
func tinyVocab() (vocab []string, types []int32, merges []string) {
	seen := map[string]bool{}
	add := func(s string, typ int32) {
		if !seen[s] {
			seen[s] = true
			vocab = append(vocab, s)
			types = append(types, typ)
		}
	}
	for b := range 256 {
		add(bpeRunes(string(rune(b)), true), 1) // normal
	}
	for _, s := range tinySpecials {
		add(s, 3) // control
	}
	letters := " abcdefghijklmnopqrstuvwxyz"
	for _, x := range letters {
		for _, y := range letters[1:] {
			l, r := bpeRunes(string(x), false), bpeRunes(string(y), false)
			merges = append(merges, l+" "+r)
			add(l+r, 1)
		}
	}
	for _, w := range tinyWords {
		for _, s := range []string{w, " " + w, strings.ToUpper(w[:1]) + w[1:], " " + strings.ToUpper(w[:1]) + w[1:]} {
			add(bpeRunes(s, false), 1)
		}
	}
	return vocab, types, merges
}

// bpeRunes maps bytes to runes as GPT-2's byte-level BPE (and Ollama's
// encoder) does. With single, s holds one rune that stands for one byte.
func bpeRunes(s string, single bool) string {
	bs := []byte(s)
	if single {
		bs = []byte{byte([]rune(s)[0])}
	}
	var sb strings.Builder
	for _, b := range bs {
		r := rune(b)
		switch {
		case r == 0x00ad:
			r = 0x0143
		case r <= 0x0020:
			r += 0x0100
		case r >= 0x007f && r <= 0x00a0:
			r += 0x00a2
		}
		sb.WriteRune(r)
	}
	return sb.String()
}
