package probescli

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/spf13/cobra"

	"github.com/killchain/killchain/internal/results"
	"github.com/killchain/killchain/internal/study"
	"github.com/killchain/killchain/probes"
)

func extractCmd(logger func() hclog.Logger, be Backend) *cobra.Command {
	var (
		gguf, modelName, tmpl, out, positions string
		tasks                                 []string
		eo                                    EngineOptions
		tol                                   float64
		randomControl                         bool
		seed                                  uint64
	)
	c := &cobra.Command{
		Use:   "extract DIR",
		Short: "Replay every model call of a study through a local model; store activations per layer as .npy",
		Long: `extract rebuilds each model call of each agent from DIR's transcripts (the exact request
the agent loop made), renders it into the prompt the model saw, and reads the residual stream
at every layer boundary through Ollama's own engine.

The model is the study's Ollama model (--model NAME: its GGUF blob and chat template come from
the server's /api/show, and only that model's calls are replayed) or any GGUF (--gguf FILE:
every call is teacher-forced through it, the reference agents' included; the chat template is
--template FILE, a Go template as 'ollama show --template' prints, else the GGUF's own).

Before anything is written, the layer loop is checked against the model's own logits on the
first prompt; beyond --tolerance the extraction is refused.

Output (DIR/probes/activations unless --out):
  layer_NN.npy   float32 [rows, hidden]; NN = 0 (embeddings) .. layers (after the last layer)
  index.jsonl    one line per row: run_id, agent, step, token position, prompt tokens, labels
  tokens.npy     int32 [total tokens]: each row's prompt ids at index tok_off, length tokens
  meta.json      model, adapter, exactness max difference, shapes
With --random-control, the same rows through random weights of the same architecture go to
DIR/probes/random (the third control of probes train).`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if be == nil {
				return delegate(cmd)
			}
			dir := args[0]
			log := logger()
			eo.Logger = log
			var src *probes.Source
			var err error
			switch {
			case gguf != "" && modelName != "":
				return errors.New("give --gguf or --model, not both")
			case gguf != "":
				src, err = probes.GGUFSource(gguf, tmpl)
			case modelName != "":
				st, diags := study.Load(filepath.Join(dir, "study.hcl"))
				if diags.HasErrors() {
					return fmt.Errorf("load %s: %s", filepath.Join(dir, "study.hcl"), diags.Error())
				}
				src, err = probes.OllamaSource(cmd.Context(), st, modelName)
			default:
				return errors.New("give the model: --gguf FILE, or --model NAME of an Ollama model block")
			}
			if err != nil {
				return err
			}
			o := probes.ExtractOptions{Out: out, Renderer: src.Renderer, TemplateSource: src.Template, Models: src.Models,
				Positions: positions, Tolerance: tol, Logger: log}
			if len(tasks) > 0 {
				o.Keep = func(r results.Run) bool { return slices.Contains(tasks, r.Task) }
			}
			if err := extractOne(cmd, be, src.GGUF, dir, o, eo); err != nil {
				return err
			}
			if !randomControl {
				return nil
			}
			rnd := filepath.Join(os.TempDir(), fmt.Sprintf("killchain-random-%d.gguf", os.Getpid()))
			defer os.Remove(rnd)
			if err := probes.RandomLike(src.GGUF, rnd, seed, 0); err != nil {
				return err
			}
			o.Out = filepath.Join(dir, "probes", "random")
			return extractOne(cmd, be, rnd, dir, o, eo)
		},
	}
	f := c.Flags()
	f.StringVar(&gguf, "gguf", "", "GGUF file to replay every call through")
	f.StringVar(&modelName, "model", "", "the study's Ollama model block whose calls are replayed")
	f.StringVar(&tmpl, "template", "", "Go chat template file for --gguf (default: the GGUF's own)")
	f.StringVar(&out, "out", "", "output folder (default DIR/probes/activations)")
	f.StringVar(&positions, "positions", "last", `"last": the last prompt token of each call; "tool": that and every token of the newest tool results`)
	f.StringSliceVar(&tasks, "tasks", nil, "only runs of these tasks")
	f.IntVar(&eo.Threads, "threads", 0, "CPU threads (default: all)")
	f.IntVar(&eo.Context, "num-ctx", 16384, "KV cache size: the longest prompt in tokens")
	f.IntVar(&eo.Batch, "batch", 512, "tokens per forward pass")
	f.IntVar(&eo.GPULayers, "gpu-layers", 0, "layers to offload to the first GPU (-1: all; needs OLLAMA_LIBRARY_PATH)")
	f.Float64Var(&tol, "tolerance", probes.DefaultTolerance, "largest logit difference the exactness check accepts")
	f.BoolVar(&randomControl, "random-control", false, "also extract through random weights of the same architecture into DIR/probes/random")
	f.Uint64Var(&seed, "random-seed", 2, "seed of the random-weights control")
	return c
}

func extractOne(cmd *cobra.Command, be Backend, gguf, dir string, o probes.ExtractOptions, eo EngineOptions) error {
	eng, err := be.Open(gguf, eo)
	if err != nil {
		return err
	}
	defer eng.Close()
	start := time.Now()
	meta, err := probes.Extract(cmd.Context(), dir, eng, o)
	if err != nil {
		return err
	}
	where := o.Out
	if where == "" {
		where = filepath.Join(dir, "probes", "activations")
	}
	fmt.Fprintf(cmd.OutOrStdout(), "%s: %d calls, %d rows, %d layers x %d hidden, %d prompt tokens in %s (%.0f tokens/s); exactness check (%s): max logit difference %g\n",
		where, meta.Calls, meta.Rows, meta.Model.Layers+1, meta.Model.Hidden, meta.Tokens, time.Since(start).Round(time.Millisecond),
		float64(meta.Tokens)/meta.Seconds, meta.Model.Adapter, meta.ExactMaxDiff)
	return nil
}

func devicesCmd(be Backend) *cobra.Command {
	var gguf string
	c := &cobra.Command{
		Use:   "devices --gguf FILE",
		Short: "Say which ggml backend and devices extraction would use for a model",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if be == nil {
				return delegate(cmd)
			}
			if gguf == "" {
				return errors.New("--gguf is required")
			}
			devs, err := be.Devices(gguf)
			if err != nil {
				return err
			}
			w := cmd.OutOrStdout()
			fmt.Fprintf(w, "architectures with a probe adapter: %s\n", strings.Join(be.Supported(), ", "))
			fmt.Fprintf(w, "OLLAMA_LIBRARY_PATH=%s\n", os.Getenv("OLLAMA_LIBRARY_PATH"))
			if len(devs) == 0 {
				fmt.Fprintln(w, "devices: CPU only (no GPU backend loaded)")
			}
			for _, d := range devs {
				fmt.Fprintf(w, "device %s %s (%s): %s, %d MiB total, %d MiB free\n", d.Library, d.ID, d.Name, d.Description, d.TotalMemory>>20, d.FreeMemory>>20)
			}
			return nil
		},
	}
	c.Flags().StringVar(&gguf, "gguf", "", "GGUF file")
	return c
}
