// Package probescli is the `probes` command: tiny-model, extract, train,
// score, devices and bench. It has no cgo: the binary that links the
// engine (cmd/killchain-probes) passes a Backend; the main killchain binary
// passes none and hands extract, devices and bench to killchain-probes.
package probescli

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/hashicorp/go-hclog"
	"github.com/spf13/cobra"

	"github.com/killchain/killchain/internal/results"
	"github.com/killchain/killchain/probes"
)

// EngineOptions are the engine settings the commands pass on.
type EngineOptions struct {
	Threads   int
	Context   int
	Batch     int
	GPULayers int
	Logger    hclog.Logger
}

// Backend opens engines; cmd/killchain-probes provides it.
type Backend interface {
	Open(path string, o EngineOptions) (probes.Engine, error)
	Devices(path string) ([]probes.Device, error)
	Supported() []string
}

// EngineBinary is the name of the binary that links the engine.
const EngineBinary = "killchain-probes"

// Command returns the probes command. logger builds the command's logger
// once flags are parsed; be is nil in binaries without the engine.
func Command(logger func() hclog.Logger, be Backend) *cobra.Command {
	c := &cobra.Command{
		Use:   "probes",
		Short: "Hidden-state probes: replay a study's model calls through a local model and train linear probes",
		Long: `probes captures what a local model computes at each model call of a study and trains
linear probes that flag an injection before it executes.

  probes tiny-model tiny.gguf                 write the seeded test model (no weights needed)
  probes extract --gguf tiny.gguf runs/text   replay every call; activations to runs/text/probes/activations
  probes extract --model qwen3 runs/local     the study's Ollama model, found through /api/show
  probes train runs/text                      probes per layer: LOSO, 5-fold and leave-one-attack-family-out, with controls
  probes score --probes runs/text/probes/probes.json runs/other
  probes devices --gguf FILE                  which backend and devices extraction would use
  probes bench                                extraction tokens/s and training time per 10,000 rows

extract, devices and bench need the cgo engine, built as bin/killchain-probes by make build;
the killchain binary runs it for them.`,
	}
	c.AddCommand(tinyCmd(logger), extractCmd(logger, be), trainCmd(logger), scoreCmd(), devicesCmd(be), benchCmd(logger, be))
	return c
}

func tinyCmd(logger func() hclog.Logger) *cobra.Command {
	var cfg probes.TinyConfig
	c := &cobra.Command{
		Use:   "tiny-model FILE",
		Short: "Write the tiny llama GGUF the tests use (random weights, seeded, deterministic)",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := probes.WriteTinyModel(args[0], cfg); err != nil {
				return err
			}
			st, err := os.Stat(args[0])
			if err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "wrote %s (%d bytes, seed %d)\n", args[0], st.Size(), cfg.Seed)
			return nil
		},
	}
	c.Flags().Uint64Var(&cfg.Seed, "seed", 1, "random seed of the weights")
	c.Flags().IntVar(&cfg.Layers, "layers", 2, "decoder layers")
	c.Flags().IntVar(&cfg.Hidden, "hidden", 64, "embedding length (a multiple of 16)")
	return c
}

func trainCmd(logger func() hclog.Logger) *cobra.Command {
	var o probes.TrainOptions
	var act string
	c := &cobra.Command{
		Use:   "train DIR",
		Short: "Train linear probes per layer on DIR's activations; write train.json and probes.json",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if act == "" {
				act = filepath.Join(args[0], "probes", "activations")
			}
			if o.Random == "" {
				if _, err := os.Stat(filepath.Join(args[0], "probes", "random", probes.MetaFile)); err == nil {
					o.Random = filepath.Join(args[0], "probes", "random")
				}
			}
			o.Logger = logger()
			res, err := probes.Train(act, o)
			if err != nil {
				return err
			}
			printTrain(cmd.OutOrStdout(), res)
			fmt.Fprintf(cmd.OutOrStdout(), "wrote %s and probes.json; `killchain report %s` adds the probes section\n",
				filepath.Join(filepath.Dir(act), "train.json"), args[0])
			return nil
		},
	}
	c.Flags().StringVar(&act, "activations", "", "extraction folder (default DIR/probes/activations)")
	c.Flags().StringVar(&o.Random, "random", "", "extraction of the random-weights control (default DIR/probes/random when present)")
	c.Flags().IntVar(&o.Folds, "folds", 5, "folds of the random split (by run)")
	c.Flags().Float64Var(&o.FPR, "fpr", 0.01, "false-positive rate on clean controls for the TPR and lead-time threshold")
	c.Flags().IntVar(&o.Bootstrap, "bootstrap", 200, "bootstrap replicates for AUROC intervals")
	c.Flags().Uint64Var(&o.Seed, "seed", 1, "seed of folds, shuffles and bootstrap")
	return c
}

func printTrain(w io.Writer, res *results.ProbeTrain) {
	fmt.Fprintf(w, "%d rows of %d runs, tasks %v, model %s (%s)\n", res.Rows, res.Runs, res.Tasks, res.Model.Arch, res.Model.Adapter)
	for _, t := range res.Targets {
		fmt.Fprintf(w, "\ntarget %s: %d positive, %d negative\n", t.Target, t.Positives, t.Negatives)
		if len(t.Layers) == 0 {
			fmt.Fprintln(w, "  not trained: one class only")
			continue
		}
		fmt.Fprintf(w, "  %-6s %-22s %-8s %-22s %-9s %-9s\n", "layer", "LOSO AUROC", "TPR@FPR", "k-fold AUROC", "shuffled", "random")
		for i, l := range t.Layers {
			rnd := "-"
			if i < len(t.Random) {
				rnd = fmt.Sprintf("%.3f", t.Random[i].LOSO.AUROC.Value)
			}
			fmt.Fprintf(w, "  %-6d %-22s %-8.2f %-22s %-9.3f %-9s\n", l.Layer, iv(l.LOSO.AUROC), l.LOSO.TPR.Value, iv(l.KFold.AUROC), t.Shuffled[i].LOSO.AUROC.Value, rnd)
		}
		fmt.Fprintf(w, "  bag of tokens: LOSO %s, k-fold %s; best layer %d; lead time %v, missed %d of %d\n",
			iv(t.BagOfTokens.LOSO.AUROC), iv(t.BagOfTokens.KFold.AUROC), t.Best, t.Lead.Turns, t.Lead.Missed, t.Lead.Runs)
		for _, l := range t.Layers {
			if l.LOFO != nil {
				fmt.Fprintf(w, "  layer %d leave-one-attack-family-out AUROC %s\n", l.Layer, iv(l.LOFO.AUROC))
			}
		}
	}
}

func iv(i results.Interval) string { return fmt.Sprintf("%.3f [%.3f, %.3f]", i.Value, i.Lo, i.Hi) }

func scoreCmd() *cobra.Command {
	var file, act, out string
	c := &cobra.Command{
		Use:   "score --probes FILE DIR",
		Short: "Apply trained probes (probes.json) to another study's activations; write scores.jsonl",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if file == "" {
				return errors.New("--probes is required (probes.json of a trained study)")
			}
			if act == "" {
				act = filepath.Join(args[0], "probes", "activations")
			}
			sum, err := probes.Score(file, act, out)
			if err != nil {
				return err
			}
			for _, t := range sum.Targets {
				fmt.Fprintf(cmd.OutOrStdout(), "%s (layer %d): fired on %d of %d rows, AUROC %.3f against this study's labels\n", t.Target, t.Layer, t.Fired, t.Rows, t.AUROC)
			}
			return nil
		},
	}
	c.Flags().StringVar(&file, "probes", "", "probes.json written by probes train")
	c.Flags().StringVar(&act, "activations", "", "extraction folder (default DIR/probes/activations)")
	c.Flags().StringVar(&out, "out", "", "folder for scores.jsonl (default DIR/probes)")
	return c
}

// Engine returns the path of killchain-probes: next to this executable,
// else on PATH.
func Engine() (string, error) {
	if exe, err := os.Executable(); err == nil {
		if p := filepath.Join(filepath.Dir(exe), EngineBinary); fileExists(p) {
			return p, nil
		}
	}
	p, err := exec.LookPath(EngineBinary)
	if err != nil {
		return "", fmt.Errorf("no %s next to this binary or on PATH (make build builds bin/%s)", EngineBinary, EngineBinary)
	}
	return p, nil
}

// Diagnose says, without loading the engine, whether probes can extract
// here and on which backend: the engine binary, and the ggml GPU backends
// OLLAMA_LIBRARY_PATH offers (CPU when it offers none). For the devices
// themselves, `killchain probes devices --gguf FILE` asks the engine.
func Diagnose() (bool, string) {
	bin, err := Engine()
	if err != nil {
		return false, err.Error()
	}
	lib := os.Getenv("OLLAMA_LIBRARY_PATH")
	if lib == "" {
		return true, bin + "; backend CPU (set OLLAMA_LIBRARY_PATH to an Ollama lib/ollama for GPU layers)"
	}
	var gpus []string
	for _, name := range []string{"cuda_v12", "cuda_v13", "cuda_v11", "rocm", "vulkan"} {
		if st, err := os.Stat(filepath.Join(lib, name)); err == nil && st.IsDir() {
			gpus = append(gpus, name)
		}
	}
	if len(gpus) == 0 {
		return true, fmt.Sprintf("%s; backend CPU (no GPU backend under OLLAMA_LIBRARY_PATH=%s)", bin, lib)
	}
	return true, fmt.Sprintf("%s; GPU backends %s under %s (devices: killchain probes devices --gguf FILE)", bin, strings.Join(gpus, ", "), lib)
}

// BenchCommand is `killchain bench probes`: the engine's bench, run in
// killchain-probes.
func BenchCommand() *cobra.Command {
	c := &cobra.Command{
		Use:                "probes [flags]",
		Short:              "Extraction tokens/s and training time per 10,000 rows (runs killchain-probes bench)",
		DisableFlagParsing: true,
		RunE: func(cmd *cobra.Command, args []string) error {
			return run(cmd, append([]string{"bench"}, args...))
		},
	}
	return c
}

// delegate runs the same command line in killchain-probes.
func delegate(cmd *cobra.Command) error {
	// os.Args is "killchain [globals] probes SUB ...": pass what follows "probes".
	args := os.Args[1:]
	for i, a := range args {
		if a == "probes" {
			args = args[i+1:]
			break
		}
	}
	return run(cmd, args)
}

// run runs killchain-probes with args.
func run(cmd *cobra.Command, args []string) error {
	bin, err := Engine()
	if err != nil {
		return fmt.Errorf("%s needs the cgo engine: %w", cmd.CommandPath(), err)
	}
	x := exec.CommandContext(cmd.Context(), bin, args...)
	x.Stdin, x.Stdout, x.Stderr = os.Stdin, cmd.OutOrStdout(), cmd.ErrOrStderr()
	if err := x.Run(); err != nil {
		return fmt.Errorf("%s: %w", EngineBinary, err)
	}
	return nil
}

func fileExists(p string) bool {
	st, err := os.Stat(p)
	return err == nil && !st.IsDir()
}
