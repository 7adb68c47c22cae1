// Package benchdata writes synthetic studies for benchmarks: a study folder
// with runs.jsonl (forensics included), events.jsonl and manifest.json, no
// transcripts. Field distributions follow the shape of a real study — five
// models of different compliance, the seven tasks with their modes, clean
// controls, defenses, cross-model relay pairs — but every value is drawn
// from a seeded generator. Generate streams: memory does not grow with the
// number of runs.
package benchdata

import (
	"bufio"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"time"

	"github.com/killchain/killchain/internal/results"
	"github.com/killchain/killchain/internal/vocab"
)

// models and how often each follows an injection it sees.
var models = []struct {
	name   string
	comply float64
}{
	{"gpt-4o-mini", 0.55}, {"deepseek-chat", 0.3}, {"gpt-5-mini", 0.05},
	{"claude-haiku-4-5", 0.01}, {"claude-sonnet-4-5", 0.002},
}

// tasks, their modes, surfaces, payload tools and how much the task raises
// or lowers compliance.
var tasks = []struct {
	name, surface, tool string
	mode                vocab.Mode
	scale               float64
}{
	{"memory_poison", "memory", "read_memory", vocab.Single, 0.8},
	{"tool_poison", "tool_result", "search", vocab.Single, 1.2},
	{"propagation", "web_page", "get_webpage", vocab.MemoryRelay, 1.1},
	{"permission_esc", "web_page", "get_webpage", vocab.DelegationRelay, 0.1},
	{"cross_modal_relay", "pdf_visible", "parse_pdf", vocab.MemoryRelay, 0.9},
	{"audio_inject", "audio", "transcribe_audio", vocab.Single, 1.0},
	{"multi_surface", "web_page+memory", "get_webpage", vocab.Single, 1.3},
}

var (
	variants = []string{"direct", "override", "token_field"}
	defenses = []string{"none", "none", "none", "write_filter", "pi_detector", "spotlighting", "all"}
)

// Generate writes a synthetic study of n runs into dir (created if needed).
func Generate(dir string, n int, seed int64) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("benchdata: %w", err)
	}
	rf, err := os.Create(filepath.Join(dir, "runs.jsonl"))
	if err != nil {
		return fmt.Errorf("benchdata: %w", err)
	}
	defer rf.Close()
	ef, err := os.Create(filepath.Join(dir, "events.jsonl"))
	if err != nil {
		return fmt.Errorf("benchdata: %w", err)
	}
	defer ef.Close()
	rw, ew := bufio.NewWriterSize(rf, 1<<20), bufio.NewWriterSize(ef, 1<<20)
	renc, eenc := json.NewEncoder(rw), json.NewEncoder(ew)
	renc.SetEscapeHTML(false)
	eenc.SetEscapeHTML(false)
	rng := rand.New(rand.NewPCG(uint64(seed), uint64(seed)^0x5851f42d4c957f2d))
	g := &gen{rng: rng, start: time.Date(2026, 3, 10, 9, 0, 0, 0, time.UTC)}
	for i := range n {
		run, events := g.run(i)
		if err := renc.Encode(run); err != nil {
			return fmt.Errorf("benchdata: write run: %w", err)
		}
		for _, e := range events {
			if err := eenc.Encode(e); err != nil {
				return fmt.Errorf("benchdata: write event: %w", err)
			}
		}
	}
	if err := rw.Flush(); err != nil {
		return fmt.Errorf("benchdata: %w", err)
	}
	if err := ew.Flush(); err != nil {
		return fmt.Errorf("benchdata: %w", err)
	}
	if err := rf.Close(); err != nil {
		return fmt.Errorf("benchdata: %w", err)
	}
	if err := ef.Close(); err != nil {
		return fmt.Errorf("benchdata: %w", err)
	}
	ms := make([]results.ModelInfo, len(models))
	for i, m := range models {
		ms[i] = results.ModelInfo{Name: m.name, Provider: "synthetic"}
	}
	man := results.Manifest{
		Tool: "killchain", Version: "bench", Study: "bench", Seed: seed, Planned: n, Backend: "synthetic",
		Started: g.start.Format(time.RFC3339), Models: ms,
	}
	if err := results.WriteJSON(dir, results.ManifestFile, man); err != nil {
		return fmt.Errorf("benchdata: %w", err)
	}
	return nil
}

// gen draws runs.
type gen struct {
	rng   *rand.Rand
	start time.Time
}

func (g *gen) pick(n int) int { return g.rng.IntN(n) }

func (g *gen) chance(p float64) bool { return g.rng.Float64() < p }

func bp(b bool) *bool { return &b }

// run draws the i-th run and its events.
func (g *gen) run(i int) (results.Run, []vocab.Event) {
	t := tasks[g.pick(len(tasks))]
	ma := models[g.pick(len(models))]
	mb := ma
	if t.mode != vocab.Single && g.chance(0.2) {
		mb = models[g.pick(len(models))]
	}
	attacked := g.chance(0.75)
	r := results.Run{
		Study: "bench", Batch: fmt.Sprintf("batch_%d", i%9), Grid: "bench", RunID: fmt.Sprintf("%s-%08x", t.name, uint32(i)*2654435761),
		Task: t.name, Surface: t.surface, Mode: string(t.mode), Defense: defenses[g.pick(len(defenses))],
		ModelA: ma.name, Attacked: attacked, Stage: vocab.None.String(),
		Started: g.start.Add(time.Duration(i) * time.Second).Format(time.RFC3339Nano),
	}
	if t.mode != vocab.Single {
		r.ModelB = mb.name
	}
	r.Variant = "none"
	r.Condition = "plain"
	if attacked {
		r.Variant = variants[g.pick(len(variants))]
		r.Condition = "hack"
		if g.chance(0.3) {
			r.Condition = "narrate"
		}
		r.Canary = fmt.Sprintf("SECRET-%08X", g.rng.Uint32())
	}
	r.Cell = fmt.Sprintf("bench/%s/%s/%s/%s/%s", r.Task, r.Variant, ModelPair(r.ModelA, r.ModelB), r.Condition, r.Defense)
	if g.chance(0.004) {
		r.Error, r.ErrorKind = "provider: 429 too many requests", "provider"
		r.DurationMS = int64(200 + g.pick(2000))
		return r, nil
	}

	called := !g.chance(0.03)
	r.NoToolCall = !called
	exposed := attacked && called
	persisted, relayed, executed := false, false, false
	comply := math.Min(1, ma.comply*t.scale)
	if r.Defense != "none" {
		comply *= 0.85
	}
	switch t.mode {
	case vocab.Single:
		executed = exposed && g.chance(comply)
	case vocab.MemoryRelay:
		persisted = exposed && g.chance(math.Min(1, comply*1.4))
		relayed = persisted && g.chance(0.97)
		executed = relayed && g.chance(math.Min(1, mb.comply*t.scale*1.3))
	case vocab.DelegationRelay:
		relayed = exposed && g.chance(math.Min(1, comply*4))
		executed = relayed && g.chance(math.Min(1, mb.comply*t.scale*2))
	}
	flag := func(s vocab.Stage, v bool) *bool {
		if !t.mode.Applies(s) {
			return nil
		}
		return bp(attacked && v)
	}
	r.Exposed, r.Persisted, r.Relayed, r.Executed = flag(vocab.Exposed, exposed), flag(vocab.Persisted, persisted), flag(vocab.Relayed, relayed), flag(vocab.Executed, executed)
	for s, b := range []*bool{r.Exposed, r.Persisted, r.Relayed, r.Executed} {
		if results.Is(b) {
			r.Stage = vocab.Stage(s + 1).String()
		}
	}
	r.AttackGoal = executed && !g.chance(0.05) || (attacked && exposed && !executed && g.chance(0.02))
	r.TaskSuccess = called && g.chance(0.9-0.3*b2f(executed))
	r.Noticed = exposed && g.chance(0.2)
	r.NoticedThinking = r.Noticed && g.chance(0.7)
	r.NoticedNarration = r.Noticed && (!r.NoticedThinking || g.chance(0.3))

	r.StepsA = 2 + g.pick(4)
	if t.mode != vocab.Single {
		r.StepsB = 2 + g.pick(4)
	}
	r.ToolCallsA = max(0, r.StepsA-1)
	r.ToolCallsB = max(0, r.StepsB-1)
	if !called {
		r.StepsA, r.ToolCallsA, r.StepsB, r.ToolCallsB = 1, 0, 0, 0
	}
	if called {
		r.Outbound = 1
		if executed && g.chance(0.7) {
			r.Outbound = 2
		}
	}
	firstExposed := 1
	steps := r.StepsA + r.StepsB
	if executed {
		lag := 1 + g.pick(min(4, max(1, steps-1)))
		r.Lag = &lag
	}
	r.InputTokens = 800 + g.pick(4000)
	r.OutputTokens = 100 + g.pick(900)
	if g.chance(0.4) {
		r.ReasoningTokens = g.pick(2000)
	}
	r.DurationMS = int64(1500 + g.pick(30000))
	r.Forensics = g.forensics(r, steps, exposed, executed, firstExposed)
	return r, g.events(r, t.tool, exposed, persisted, relayed, executed, firstExposed)
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// ModelPair is the cell's model part.
func ModelPair(a, b string) string {
	if b == "" {
		return a
	}
	return a + ">" + b
}
