// Package export writes a study folder in other tools' formats: Inspect AI's
// eval logs (.eval and .json), so that `inspect view` opens a study. It
// reads the folder only through package results.
package export

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"math/big"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/killchain/killchain/internal/results"
	"github.com/killchain/killchain/internal/rooted"
	"github.com/killchain/killchain/internal/sanitize"
)

// The formats of an Inspect export.
const (
	// FormatEval is Inspect's default: a zip of JSON members per log.
	FormatEval = "eval"
	// FormatJSON is one JSON document per log.
	FormatJSON = "json"
)

// LogVersion is the version of Inspect's log format an export writes.
const LogVersion = 2

// InspectOptions says where and how to write.
type InspectOptions struct {
	// Out is the folder the logs go to; "" means DIR/inspect.
	Out string
	// Format is FormatEval (the default) or FormatJSON.
	Format string
}

// Inspect writes one Inspect eval log per task and model (per writer→reader
// pair for relay runs) of the study folder dir, each run a sample, and
// returns the paths it wrote, in the order of their first run in
// runs.jsonl. An existing log of the same name is replaced.
func Inspect(ctx context.Context, dir string, opts InspectOptions) ([]string, error) {
	if opts.Format == "" {
		opts.Format = FormatEval
	}
	if opts.Format != FormatEval && opts.Format != FormatJSON {
		return nil, fmt.Errorf("export inspect: unknown format %q (eval or json)", opts.Format)
	}
	// An imported study has no manifest: its runs name the study, and its
	// models are named as killchain's.
	man, err := results.ReadManifest(dir)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("export inspect: %w", err)
	}
	groups, err := groupRuns(ctx, dir)
	if err != nil {
		return nil, fmt.Errorf("export inspect: %w", err)
	}
	if len(groups) == 0 {
		return nil, fmt.Errorf("export inspect: %s holds no runs", filepath.Join(dir, results.RunsFile))
	}
	if man.Study == "" {
		man.Study = groups[0].Runs[0].Study
	}
	out, err := rooted.OpenOut(dir, "inspect", opts.Out)
	if err != nil {
		return nil, fmt.Errorf("export inspect: %w", err)
	}
	defer out.Close()
	names := newModelNames(man)
	short := shortfall(man, groups)
	var paths []string
	for _, g := range groups {
		if err := ctx.Err(); err != nil {
			return paths, err
		}
		l := newLog(man, g, names)
		if short != "" {
			// A study stopped early (its cost limit, a refused key,
			// Ctrl-C) is not a finished eval: Inspect shows it cancelled.
			l.header.Status = "cancelled"
			l.header.Metadata["killchain_incomplete"] = short
		}
		name := l.fileName() + "." + opts.Format
		next := func() (*EvalSample, error) { return l.next(dir) }
		if opts.Format == FormatEval {
			err = writeEval(out, name, l, next)
		} else {
			err = writeJSON(out, name, l, next)
		}
		if err != nil {
			return paths, fmt.Errorf("export inspect: %s: %w", g.key(), err)
		}
		paths = append(paths, out.Join(name))
	}
	return paths, nil
}

// shortfall says how far a study folder is from its plan ("" when every
// planned run, or every run of the selection it ran, is recorded).
func shortfall(man results.Manifest, groups []*group) string {
	want := man.Planned
	if man.Selection != nil {
		want = man.Selection.Selected
	}
	got := 0
	for _, g := range groups {
		got += len(g.Runs)
	}
	if want <= 0 || got >= want {
		return ""
	}
	return fmt.Sprintf("%d of %d planned runs recorded; killchain run --resume DIR runs the rest", got, want)
}

// group is the runs of one task and model (or pair).
type group struct {
	Task, ModelA, ModelB, Mode string
	Runs                       []*results.Run
}

func (g *group) key() string {
	if g.ModelB == "" {
		return g.Task + " " + g.ModelA
	}
	return g.Task + " " + g.ModelA + "→" + g.ModelB
}

// suite is the suite every run of the group belongs to, or "" (runs
// outside suites, or of several).
func (g *group) suite() string {
	su := g.Runs[0].RunSuite()
	for _, r := range g.Runs[1:] {
		if r.RunSuite() != su {
			return ""
		}
	}
	return su
}

// groupRuns reads the last line of every run and groups the runs by task
// and models, in the order of their first run.
func groupRuns(ctx context.Context, dir string) ([]*group, error) {
	var groups []*group
	byKey := map[string]*group{}
	_, err := results.ReadLatest(ctx, filepath.Join(dir, results.RunsFile), results.ReadOptions{}, func(r *results.Run) error {
		k := r.Task + "\x00" + r.ModelA + "\x00" + r.ModelB
		g, ok := byKey[k]
		if !ok {
			g = &group{Task: r.Task, ModelA: r.ModelA, ModelB: r.ModelB, Mode: r.Mode}
			byKey[k] = g
			groups = append(groups, g)
		}
		run := *r
		g.Runs = append(g.Runs, &run)
		return nil
	})
	return groups, err
}

// modelNames gives each model block its Inspect name, provider/model.
type modelNames struct {
	names map[string]string
	infos map[string]results.ModelInfo
}

func newModelNames(man results.Manifest) *modelNames {
	n := &modelNames{names: map[string]string{}, infos: map[string]results.ModelInfo{}}
	used := map[string]int{}
	inspectName := func(m results.ModelInfo) string {
		id := m.Model
		if id == "" {
			id = m.Name
		}
		return m.Provider + "/" + id
	}
	for _, m := range man.Models {
		used[inspectName(m)]++
	}
	for _, m := range man.Models {
		name := inspectName(m)
		if used[name] > 1 { // two blocks of one model with other settings
			name = m.Provider + "/" + m.Name
		}
		n.names[m.Name], n.infos[m.Name] = name, m
	}
	return n
}

// name is a model block's Inspect name; a block the manifest does not list
// is named as killchain's.
func (n *modelNames) name(block string) string {
	if s, ok := n.names[block]; ok {
		return s
	}
	return "killchain/" + block
}

// config is a model block's generation settings.
func (n *modelNames) config(block string) GenerateConfig {
	m, ok := n.infos[block]
	if !ok {
		return GenerateConfig{}
	}
	t := m.Temperature
	c := GenerateConfig{Temperature: &t, MaxTokens: m.MaxTokens, Seed: m.Seed, ReasoningEffort: m.ReasoningEffort}
	if m.Thinking {
		c.ReasoningTokens = m.ThinkingBudget
	}
	return c
}

// inspectLog is one log being written: its header and the samples still to
// read.
type inspectLog struct {
	header EvalLog
	runs   []*results.Run
	names  *modelNames
	i      int
}

func newLog(man results.Manifest, g *group, names *modelNames) *inspectLog {
	created := logTime(man, g)
	ids := make([]string, len(g.Runs))
	for i, r := range g.Runs {
		ids[i] = r.RunID
	}
	spec := EvalSpec{
		EvalID:         shortID("eval", man.Study, man.PlanHash, g.key()),
		RunID:          shortID("run", man.Study, man.PlanHash),
		Created:        created,
		Task:           g.Task,
		TaskID:         shortID("task", man.Study, man.PlanHash, g.key()),
		TaskAttribs:    map[string]any{},
		TaskArgs:       map[string]any{},
		TaskArgsPassed: map[string]any{},
		Solver:         "killchain/" + g.Mode,
		Dataset: EvalDataset{Name: man.Study, Location: results.RunsFile, Samples: len(g.Runs),
			SampleIDs: ids, Shuffled: false},
		Model:               names.name(g.ModelA),
		ModelGenerateConfig: names.config(g.ModelA),
		ModelArgs:           map[string]any{"block": g.ModelA},
		Config:              EvalConfig{Epochs: 1},
		Packages:            map[string]string{"killchain": man.Version},
		Metadata: map[string]any{"study": man.Study, "plan_hash": man.PlanHash, "commit": man.Commit,
			"sandbox_backend": man.Backend, "model_a": g.ModelA, "model_b": g.ModelB, "mode": g.Mode},
	}
	if info, ok := names.infos[g.ModelA]; ok && info.BaseURL != "" {
		spec.ModelBaseURL = info.BaseURL
	}
	tags := []string{"killchain", man.Study}
	if su := g.suite(); su != "" {
		// A user task of a suite: the log names its suite, and so does
		// each sample with its injection.
		spec.Metadata["suite"] = su
		tags = append(tags, su)
	}
	if g.ModelB != "" {
		spec.TaskDisplayName = g.Task + " (" + g.ModelA + "→" + g.ModelB + ")"
		spec.ModelRoles = map[string]ModelConfig{
			"writer": {Model: names.name(g.ModelA), Config: names.config(g.ModelA), Args: map[string]any{"block": g.ModelA}},
			"reader": {Model: names.name(g.ModelB), Config: names.config(g.ModelB), Args: map[string]any{"block": g.ModelB}},
		}
	}
	return &inspectLog{
		header: EvalLog{
			Version: LogVersion,
			Status:  "success",
			Eval:    spec,
			Plan: EvalPlan{Name: "plan", Config: GenerateConfig{}, Steps: []EvalPlanStep{{Solver: "killchain/" + g.Mode,
				Params: map[string]any{"mode": g.Mode}, ParamsPassed: map[string]any{}}}},
			Stats: EvalStats{StartedAt: created, CompletedAt: created, ModelUsage: map[string]ModelUsage{},
				RoleUsage: map[string]ModelUsage{}, ConnectionLimitHistory: []any{}},
			Tags:     tags,
			Metadata: map[string]any{"killchain_study": man.Study},
		},
		runs:  g.Runs,
		names: names,
	}
}

// next reads the next run's transcript and returns its sample, or nil
// after the last.
func (l *inspectLog) next(dir string) (*EvalSample, error) {
	if l.i >= len(l.runs) {
		return nil, nil
	}
	r := l.runs[l.i]
	l.i++
	t, err := results.ReadTranscript(dir, r.RunID)
	if errors.Is(err, fs.ErrNotExist) {
		t, err = nil, nil
	}
	if err != nil {
		return nil, err
	}
	s := sample(r, t, l.names.name)
	return &s, nil
}

// fileName is the log's name as Inspect names it: its creation time, task
// and task id, each with _ / : + turned into -.
func (l *inspectLog) fileName() string {
	return cleanComponent(l.header.Eval.Created) + "_" + cleanComponent(l.header.Eval.Task) + "_" + cleanComponent(l.header.Eval.TaskID)
}

// cleanComponent is a file name part as Inspect cleans one, and through
// sanitize.FileName: a task name from runs.jsonl may hold a newline or a
// separator.
func cleanComponent(s string) string {
	return sanitize.FileName(strings.NewReplacer("_", "-", "/", "-", ":", "-", "+", "-").Replace(s))
}

// logTime is the log's creation time, as Inspect writes one (seconds and a
// UTC offset): the study's start, else its group's first run's.
func logTime(man results.Manifest, g *group) string {
	for _, s := range append([]string{man.Started}, g.Runs[0].Started) {
		if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
			return t.UTC().Format("2006-01-02T15:04:05-07:00")
		}
	}
	return time.Unix(0, 0).UTC().Format("2006-01-02T15:04:05-07:00")
}

// shortID is a stable 22-character id (letters and digits) of its parts,
// so an export of the same study names its logs the same.
func shortID(parts ...string) string {
	sum := sha256.Sum256([]byte(strings.Join(parts, "\x00")))
	s := new(big.Int).SetBytes(sum[:16]).Text(62)
	for len(s) < 22 {
		s = "0" + s
	}
	return s[:22]
}

// finish completes the header from the samples written: times, usage per
// model, and the results over the scores.
func (l *inspectLog) finish(samples []*EvalSample) {
	h := &l.header
	var first, last string
	order := []string{}
	scored := map[string][]EvalSampleScore{}
	completed := 0
	for _, s := range samples {
		if s.StartedAt != "" && (first == "" || s.StartedAt < first) {
			first = s.StartedAt
		}
		if s.CompletedAt > last {
			last = s.CompletedAt
		}
		for m, u := range s.ModelUsage {
			h.Stats.ModelUsage[m] = h.Stats.ModelUsage[m].add(u)
		}
		if s.Error == nil {
			completed++
		}
		for _, name := range slices.Sorted(maps.Keys(s.Scores)) {
			if !slices.Contains(order, name) {
				order = append(order, name)
			}
			sc := s.Scores[name]
			scored[name] = append(scored[name], EvalSampleScore{Value: sc.Value, Answer: sc.Answer, Explanation: sc.Explanation,
				Metadata: sc.Metadata, History: []any{}, SampleID: s.ID})
		}
	}
	if first != "" {
		h.Stats.StartedAt, h.Stats.CompletedAt = first, last
	}
	res := &EvalResults{TotalSamples: len(samples), CompletedSamples: completed, Scores: []EvalScore{}}
	slices.SortStableFunc(order, func(a, b string) int { return scoreRank(a) - scoreRank(b) })
	for _, name := range order {
		vals := scored[name]
		es := EvalScore{Name: name, Scorer: name, Params: map[string]any{}, Metrics: map[string]EvalMetric{},
			ScoredSamples: len(vals), UnscoredSamples: len(samples) - len(vals)}
		if m, ok := mean(vals); ok {
			es.Metrics["mean"] = EvalMetric{Name: "mean", Value: m, Params: map[string]any{}}
		}
		res.Scores = append(res.Scores, es)
		h.Reductions = append(h.Reductions, EvalSampleReductions{Scorer: name, Samples: vals})
	}
	h.Results = res
}

// scoreRank orders the scores as the report does: stage first.
func scoreRank(name string) int {
	i := slices.Index([]string{ScoreStage, ScoreExecuted, ScoreAttackGoal, ScoreTaskSuccess, ScoreNoticed,
		ScoreUtility, ScoreUtilityUnderAttack, ScoreTargetedASR, ScoreHack, ScoreVisiblePass, ScoreTruePass}, name)
	if i < 0 {
		return 100
	}
	return i
}

// mean is the share of true values of a score whose values are all bools.
func mean(vals []EvalSampleScore) (float64, bool) {
	if len(vals) == 0 {
		return 0, false
	}
	n := 0
	for _, v := range vals {
		b, ok := v.Value.(bool)
		if !ok {
			return 0, false
		}
		if b {
			n++
		}
	}
	return float64(n) / float64(len(vals)), true
}
