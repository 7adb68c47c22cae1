package probes

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/killchain/killchain/internal/agent"
	"github.com/killchain/killchain/internal/results"
	"github.com/killchain/killchain/internal/rooted"
	"github.com/killchain/killchain/internal/vocab"
)

// DefaultTolerance is the largest logit difference the exactness check
// accepts between the layer loop and the model's own forward pass.
const DefaultTolerance = 1e-4

// ExtractOptions configure Extract.
type ExtractOptions struct {
	// Out is the extraction folder; default DIR/probes/activations.
	Out      string
	Renderer *Renderer
	// TemplateSource says where the chat template came from (meta.json).
	TemplateSource string
	// Models keeps only the calls of these model block names; empty: all
	// (teacher-forced replay of every call through the given model).
	Models []string
	// Positions is "last" (the last prompt token of each call) or "tool"
	// (that and every token of the newest tool results).
	Positions string
	Tolerance float64
	// Keep selects runs; nil keeps every finished run.
	Keep   func(results.Run) bool
	Logger hclog.Logger
}

// Extract replays every model call of the study in dir through eng and
// streams the residual stream at every layer boundary to .npy files, one
// row per kept position, with index.jsonl and meta.json. Memory holds one
// call's activations, not the study's. The first call is the exactness
// check: beyond the tolerance nothing is written.
func Extract(ctx context.Context, dir string, eng Engine, o ExtractOptions) (Meta, error) {
	if o.Positions == "" {
		o.Positions = "last"
	}
	if o.Positions != "last" && o.Positions != "tool" {
		return Meta{}, fmt.Errorf("positions %q: want last or tool", o.Positions)
	}
	if o.Tolerance <= 0 {
		o.Tolerance = DefaultTolerance
	}
	if o.Logger == nil {
		o.Logger = hclog.NewNullLogger()
	}
	if o.Renderer == nil {
		return Meta{}, errors.New("extract: no renderer")
	}
	log := o.Logger.Named("extract")
	runs, executed, err := readStudy(ctx, dir, o.Keep)
	if err != nil {
		return Meta{}, err
	}
	// The default folder is opened from the study folder, so a probes/
	// that links elsewhere is refused (package rooted).
	out, err := rooted.OpenOut(dir, filepath.Join("probes", "activations"), o.Out)
	if err != nil {
		return Meta{}, fmt.Errorf("extract: %w", err)
	}
	defer out.Close()
	info := eng.Info()
	w, err := newWriters(out, info)
	if err != nil {
		return Meta{}, err
	}
	defer w.abort()
	meta := Meta{Model: info, Template: o.TemplateSource, Positions: o.Positions, ExactMaxDiff: -1}
	start := time.Now()
	for _, run := range runs {
		if err := ctx.Err(); err != nil {
			return Meta{}, err
		}
		meta.Study = run.Study
		tr, err := results.ReadTranscript(dir, run.RunID)
		if err != nil {
			return Meta{}, err
		}
		calls, err := Calls(tr)
		if err != nil {
			return Meta{}, err
		}
		for _, c := range calls {
			if len(o.Models) > 0 && !slices.Contains(o.Models, c.Model) {
				continue
			}
			prompt, err := o.Renderer.Render(c.Request)
			if err != nil {
				return Meta{}, fmt.Errorf("run %s step %d: %w", run.RunID, c.Step, err)
			}
			ids, err := eng.Tokenize(prompt)
			if err != nil {
				return Meta{}, fmt.Errorf("run %s step %d: %w", run.RunID, c.Step, err)
			}
			if meta.ExactMaxDiff < 0 {
				d, err := eng.CheckExact(ids)
				if err != nil {
					return Meta{}, fmt.Errorf("exactness check: %w", err)
				}
				log.Info("exactness check", "adapter", info.Adapter, "max_diff", d, "tokens", len(ids))
				if !(d <= o.Tolerance) { // NaN fails too
					return Meta{}, fmt.Errorf("exactness check: the %s layer loop differs from the model's logits by %g (tolerance %g)", info.Adapter, d, o.Tolerance)
				}
				meta.ExactMaxDiff = d
			}
			keep, kinds := []int{len(ids) - 1}, []string{"last"}
			if o.Positions == "tool" {
				if keep, kinds, err = toolPositions(eng, prompt, ids, c.Request); err != nil {
					return Meta{}, fmt.Errorf("run %s step %d: %w", run.RunID, c.Step, err)
				}
			}
			states, err := eng.Forward(ids, keep)
			if err != nil {
				return Meta{}, fmt.Errorf("run %s step %d: %w", run.RunID, c.Step, err)
			}
			base := Row{
				RunID: run.RunID, Agent: c.Agent, Pos: c.Pos, Model: c.Model, Step: c.Step, Turn: c.Turn,
				Tokens: len(ids), Task: run.Task, Variant: run.Variant, Attack: run.Attack, Surface: run.Surface,
				Condition: run.Condition, Defense: run.Defense, Attacked: run.Attacked, Stage: run.Stage,
				Injection: run.Canary != "" && strings.Contains(prompt, run.Canary),
				Executes:  executed[stepKey{run.RunID, c.Step}],
				Tampers:   tampers(run, c.Step),
				ToolCalls: c.ToolCalls,
			}
			if err := w.call(base, ids, keep, kinds, states); err != nil {
				return Meta{}, err
			}
			meta.Calls++
			meta.Tokens += len(ids)
		}
	}
	if meta.Calls == 0 {
		return Meta{}, errors.New("extract: no model calls to replay (check --model and the selection)")
	}
	meta.Seconds = time.Since(start).Seconds()
	meta.Rows = w.rows
	meta.Shapes = map[string][]int{"layer_NN.npy": {w.rows, info.Hidden}, TokensFile: {w.tokens}}
	if err := w.close(meta); err != nil {
		return Meta{}, err
	}
	log.Info("extracted", "calls", meta.Calls, "rows", meta.Rows, "seconds", meta.Seconds)
	return meta, nil
}

type stepKey struct {
	run  string
	step int
}

// readStudy returns the finished runs (last line of each, in file order)
// and the steps whose tool call executed the canary.
func readStudy(ctx context.Context, dir string, keep func(results.Run) bool) ([]results.Run, map[stepKey]bool, error) {
	var runs []results.Run
	_, err := results.ReadLatestRuns(filepath.Join(dir, results.RunsFile), func(r results.Run) error {
		if r.Error == "" && (keep == nil || keep(r)) {
			runs = append(runs, r)
		}
		return nil
	})
	if err != nil {
		return nil, nil, fmt.Errorf("read runs: %w", err)
	}
	executed := map[stepKey]bool{}
	err = results.ReadEvents(ctx, filepath.Join(dir, results.EventsFile), func(l *results.EventLine) error {
		if l.Event.Signal == vocab.Executed.String() {
			executed[stepKey{l.Event.RunID, l.Event.Step}] = true
		}
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	// Runs of one task share their system prompt and tools: read together,
	// the engine's cached prefix covers them.
	slices.SortStableFunc(runs, func(a, b results.Run) int { return strings.Compare(a.Task, b.Task) })
	return runs, executed, nil
}

// toolPositions returns the last token and every token of the newest tool
// results (the tool messages after the last assistant message), sorted.
func toolPositions(eng Engine, prompt string, ids []int32, req agent.Request) ([]int, []string, error) {
	offs := make([]int, len(ids)+1)
	for i, id := range ids {
		s, err := eng.Decode([]int32{id})
		if err != nil {
			return nil, nil, err
		}
		offs[i+1] = offs[i] + len(s)
	}
	if offs[len(ids)] != len(prompt) {
		return nil, nil, fmt.Errorf("tool positions: tokens cover %d of %d prompt bytes", offs[len(ids)], len(prompt))
	}
	var keep []int
	var kinds []string
	from := len(prompt)
	msgs := req.Messages
	for i := len(msgs) - 1; i >= 0 && msgs[i].Role == agent.RoleTool; i-- {
		c := msgs[i].Content
		at := strings.LastIndex(prompt[:from], c)
		if at < 0 || c == "" {
			continue
		}
		from = at
		for t := range ids {
			if offs[t] >= at && offs[t] < at+len(c) && t != len(ids)-1 {
				keep = append(keep, t)
				kinds = append(kinds, "tool")
			}
		}
	}
	keep = append(keep, len(ids)-1)
	kinds = append(kinds, "last")
	idx := make([]int, len(keep))
	for i := range idx {
		idx[i] = i
	}
	slices.SortFunc(idx, func(a, b int) int { return keep[a] - keep[b] })
	k2, n2 := make([]int, len(keep)), make([]string, len(keep))
	for i, j := range idx {
		k2[i], n2[i] = keep[j], kinds[j]
	}
	return k2, n2, nil
}

// tampers reports whether step is where a reward-hack run's hack first shows
// in the effect log.
func tampers(run results.Run, step int) bool {
	h := run.RewardHack
	return h != nil && results.Is(h.Hack) && h.HackStepEffect != nil && *h.HackStepEffect == step
}
