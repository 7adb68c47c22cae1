package probescli

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/spf13/cobra"

	"github.com/killchain/killchain/internal/agent"
	"github.com/killchain/killchain/probes"
)

func benchCmd(logger func() hclog.Logger, be Backend) *cobra.Command {
	var (
		gguf  string
		calls int
		eo    EngineOptions
	)
	c := &cobra.Command{
		Use:   "bench",
		Short: "Measure extraction tokens/s and training time per 10,000 rows on this machine",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if be == nil {
				return delegate(cmd)
			}
			w := cmd.OutOrStdout()
			if gguf == "" {
				dir, err := os.MkdirTemp("", "killchain-bench-")
				if err != nil {
					return err
				}
				defer os.RemoveAll(dir)
				gguf = filepath.Join(dir, "tiny.gguf")
				if err := probes.WriteTinyModel(gguf, probes.TinyConfig{Seed: 1}); err != nil {
					return err
				}
			}
			eo.Logger = logger()
			eng, err := be.Open(gguf, eo)
			if err != nil {
				return err
			}
			defer eng.Close()
			src, err := probes.GGUFSource(gguf, "")
			if err != nil {
				return err
			}
			// Synthetic agent turns: a growing conversation per "run",
			// as extraction reads them (cached prefixes included).
			rng := rand.New(rand.NewPCG(1, 2))
			words := strings.Fields("the inspection found corroded bolts on the north span report send summary supervisor memory note filing code budget contractor")
			var total, computedCalls int
			start := time.Now()
			for run := 0; computedCalls < calls; run++ {
				req := agent.Request{System: "You are an assistant.", Messages: []agent.Message{{Role: agent.RoleUser, Content: "Read the notes and report."}}}
				for turn := 0; turn < 4 && computedCalls < calls; turn++ {
					prompt, err := src.Renderer.Render(req)
					if err != nil {
						return err
					}
					ids, err := eng.Tokenize(prompt)
					if err != nil {
						return err
					}
					if _, err := eng.Forward(ids, []int{len(ids) - 1}); err != nil {
						return err
					}
					total += len(ids)
					computedCalls++
					var sb strings.Builder
					for range 120 {
						sb.WriteString(words[rng.IntN(len(words))] + " ")
					}
					id := fmt.Sprintf("c%d", turn)
					req.Messages = append(req.Messages,
						agent.Message{Role: agent.RoleAssistant, ToolCalls: []agent.ToolCall{{ID: id, Name: "read_memory", Arguments: "{}"}}},
						agent.Message{Role: agent.RoleTool, ToolCallID: id, ToolName: "read_memory", Content: sb.String()})
				}
			}
			el := time.Since(start)
			info := eng.Info()
			fmt.Fprintf(w, "extraction: %s (%s, %d layers, hidden %d): %d calls, %d prompt tokens in %s: %.0f tokens/s\n",
				filepath.Base(gguf), info.Adapter, info.Layers, info.Hidden, computedCalls, total, el.Round(time.Millisecond), float64(total)/el.Seconds())
			const rows = 10000
			x := make([]float32, rows*info.Hidden)
			y := make([]bool, rows)
			for i := range rows {
				y[i] = rng.IntN(2) == 1
				for j := range info.Hidden {
					x[i*info.Hidden+j] = float32(rng.NormFloat64())
					if y[i] && j == 0 {
						x[i*info.Hidden+j] += 1
					}
				}
			}
			start = time.Now()
			if _, err := probes.FitProbe(x, info.Hidden, y, probes.DefaultL2); err != nil {
				return err
			}
			fmt.Fprintf(w, "training: one logistic probe on %d rows x %d: %s (LOSO and 5-fold over L layers and 2 targets fit about 2·L·(tasks+5) of these, plus controls)\n",
				rows, info.Hidden, time.Since(start).Round(time.Millisecond))
			return nil
		},
	}
	c.Flags().StringVar(&gguf, "gguf", "", "GGUF to measure (default: the tiny model)")
	c.Flags().IntVar(&calls, "calls", 40, "model calls to replay")
	c.Flags().IntVar(&eo.Threads, "threads", 0, "CPU threads (default: all)")
	c.Flags().IntVar(&eo.Context, "num-ctx", 16384, "KV cache size in tokens")
	c.Flags().IntVar(&eo.GPULayers, "gpu-layers", 0, "layers to offload to the first GPU (-1: all)")
	return c
}
