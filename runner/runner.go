// Package runner expands a study into runs and executes them with bounded
// concurrency, one fresh sandbox per run, writing every finished run to the
// study folder as it finishes. An interrupted study can be resumed.
package runner

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"github.com/hashicorp/go-hclog"
	"golang.org/x/sync/errgroup"

	"github.com/killchain/killchain/internal/agent"
	"github.com/killchain/killchain/internal/canary"
	"github.com/killchain/killchain/internal/cost"
	"github.com/killchain/killchain/internal/errkind"
	"github.com/killchain/killchain/internal/results"
	"github.com/killchain/killchain/internal/study"
	"github.com/killchain/killchain/sandbox"
	"github.com/killchain/killchain/verifiers"
)

// ModelFactory builds the model of a study's model block.
type ModelFactory func(m *study.Model) (agent.Model, error)

// Options configure a Runner.
type Options struct {
	Output   string // study folder; defaults to the study's output
	Resume   bool   // finish an interrupted study in Output
	Backend  sandbox.Backend
	Models   ModelFactory
	Logger   hclog.Logger
	Progress io.Writer // progress bar or lines; nil for none
	// Scrub, when set, removes secrets (API keys) from error text before it
	// is recorded; the drivers scrub already, this is the second line.
	Scrub func(string) string
	// Manifest adds entries (image digests, backend facts) to manifest.json.
	Manifest map[string]any
	// Selection, when set and not empty, runs only the runs of the study's
	// plan it keeps (study.Selection.Apply). The folder still belongs to the
	// full study: its manifest holds the full plan's hash, so a later run
	// with another selection, or none, resumes over the same folder, and
	// runs already finished are never run again.
	Selection *study.Selection
	// HackClassifier decides whether an agent's thinking or narration
	// states a reward hack; nil: verifiers.KeywordClassifier.
	HackClassifier verifiers.HackClassifier
	// Rerun names the error kinds of the model's own behaviour (truncated,
	// refused) whose runs a resume runs again. A resume always runs again
	// the selected runs that failed for the infrastructure (sandbox,
	// provider, verifier, defense, internal); a truncated or refused run is
	// the model's reply under the study's settings, and running it again
	// until it passes would resample the model, so it is left as it is
	// unless named here.
	Rerun []errkind.Kind
	// Timed, when set, is called as each run is recorded with its wall
	// time (from its first try's start to its record on disk) and the part
	// of it spent writing the record; `killchain bench runner` reads it.
	Timed func(wall, record time.Duration)
	// CostLimit, when above 0, replaces the study's cost_limit (dollars).
	CostLimit float64
	// CostPrior is the estimated cost of a run before any run of the study
	// has cost something (a plan's estimate); 0 when there is none.
	CostPrior float64
}

// snapshotter is a backend that prepares one snapshot per task.
type snapshotter interface {
	Snapshots() map[string]string
}

// Runner executes one study.
type Runner struct {
	study   *study.Study
	opts    Options
	backend sandbox.Backend
	log     hclog.Logger

	selected int                  // runs the selection kept, for the manifest
	defs     []results.TaskInfo   // the definitions of the plan's tasks
	defHash  map[string]string    // task name → its definition's hash
	atkDefs  []results.AttackInfo // the attack families of the study's task files

	mu       sync.Mutex
	models   map[string]agent.Model
	defCache map[string][]agent.Defense
}

// Summary is what a finished (or interrupted) study reports.
type Summary struct {
	Planned  int // the full study's runs
	Selected int // the runs the selection kept; Planned without one
	Skipped  int // selected runs finished before a resume
	// Left counts the selected runs a resume left as they were: errored
	// runs of a kind not re-run (truncated, refused; see Options.Rerun),
	// by kind.
	Left     map[errkind.Kind]int
	Ran      int
	Errors   int
	Retried  int // retries of runs after a sandbox or provider error
	Canceled bool
	Output   string
	// Spent is what the study's recorded runs cost in all, earlier starts
	// and superseded tries included.
	Spent float64
	// CostLimit is the limit the study ran under (0: none); CostStopped
	// says why it stopped starting runs, "" when it did not.
	CostLimit   float64
	CostStopped string
	// RateLimited counts the 429 answers the runs of this start met.
	RateLimited int
	// Rounds counts the runs of adaptive rounds after round 0 recorded
	// now (in Ran too): the plan does not hold them. Stopped counts the
	// adaptive cells their attacker's budget (max_tokens or max_cost)
	// stopped early. AttackerErrors counts the runs of those rounds that
	// had no payload (in Rounds and Errors too): never started, in no rate.
	Rounds, Stopped, AttackerErrors int
}

// New checks the options and returns a Runner.
func New(s *study.Study, opts Options) (*Runner, error) {
	if opts.Backend == nil {
		return nil, errors.New("runner: no sandbox backend")
	}
	if opts.Models == nil {
		return nil, errors.New("runner: no model factory")
	}
	if opts.Output == "" {
		opts.Output = s.Output
	}
	if opts.Output == "" {
		return nil, errors.New("runner: no output folder (set study.output or --output)")
	}
	if opts.Logger == nil {
		opts.Logger = hclog.NewNullLogger()
	}
	if opts.Selection != nil {
		if errs := opts.Selection.Validate(s); len(errs) > 0 {
			return nil, fmt.Errorf("runner: selection: %w", errors.Join(errs...))
		}
		if opts.Selection.Empty() {
			opts.Selection = nil
		}
	}
	return &Runner{study: s, opts: opts, backend: opts.Backend, log: opts.Logger.Named("runner"),
		models: map[string]agent.Model{}, defCache: map[string][]agent.Defense{}}, nil
}

// model returns (and caches) the model of a block name.
func (r *Runner) model(name string) (agent.Model, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if m, ok := r.models[name]; ok {
		return m, nil
	}
	blk, ok := r.study.Model(name)
	if !ok {
		return nil, fmt.Errorf("unknown model %q", name)
	}
	m, err := r.opts.Models(blk)
	if err != nil {
		return nil, fmt.Errorf("model %s: %w", name, err)
	}
	r.models[name] = m
	return m, nil
}

// defenses returns (and caches) the defenses of a defense name.
func (r *Runner) defenses(name string) ([]agent.Defense, error) {
	r.mu.Lock()
	if d, ok := r.defCache[name]; ok {
		r.mu.Unlock()
		return d, nil
	}
	r.mu.Unlock()
	d, err := buildDefenses(r.study, name, r.classifier)
	if err != nil {
		return nil, err
	}
	r.mu.Lock()
	r.defCache[name] = d
	r.mu.Unlock()
	return d, nil
}

// classifier is the model a defense classifies calls with: the study's
// model of a block name, or, for "", the built-in keyword classifier, a
// scripted policy built by the same factory as every model.
func (r *Runner) classifier(name string) (agent.Model, error) {
	if name == "" {
		return r.opts.Models(&study.Model{Name: "classifier", Provider: study.ProviderScripted, Policy: "classifier"})
	}
	return r.model(name)
}

// Run executes every planned run that is not finished yet. Ctrl-C (ctx
// cancelled) stops starting runs; runs in flight are abandoned unrecorded and
// every finished run stays on disk for --resume.
func (r *Runner) Run(ctx context.Context) (Summary, error) {
	sum := Summary{Output: r.opts.Output}
	plan, err := r.study.Plan()
	if err != nil {
		return sum, fmt.Errorf("plan: %w", err)
	}
	sum.Planned = len(plan)
	// The hash is the full plan's, whatever the selection: a subset's
	// folder resumes into the full study and into any other subset.
	hash := r.study.PlanHash(plan)
	r.taskDefs(plan)
	selected, err := r.selectRuns(plan)
	if err != nil {
		return sum, err
	}
	sum.Selected, r.selected = len(selected), len(selected)
	if err := CheckCapabilities(r.backend.Name(), sandbox.CapabilitiesOf(r.backend), selected, r.study.Tasks); err != nil {
		return sum, err
	}
	if err := r.prepareOutput(hash, len(plan)); err != nil {
		return sum, err
	}
	// Open compacts the folder: what a killed process left of unrecorded
	// runs is gone, and errored tries have moved to attempts.jsonl.
	w, err := results.Open(r.opts.Output)
	if err != nil {
		return sum, err
	}
	closed := false
	defer func() {
		if !closed {
			w.Close()
		}
	}()
	if st := w.Compacted(); st.Changed() || st.Short > 0 {
		r.log.Info("study folder compacted", "runs", st.Runs, "moved_to_attempts", st.Moved,
			"orphan_events", st.Orphans, "duplicate_events", st.Duplicates, "runs_short_of_events", st.Short)
	}
	prev, used, err := finished(r.opts.Output)
	if err != nil {
		return sum, fmt.Errorf("resume: %w", err)
	}
	var canaries canary.Set
	for _, c := range used {
		canaries.Reserve(c)
	}
	// The runs of grids with an attacker run as adaptive cells, round by
	// round, after the others (adaptive.go).
	flat, cells := r.adaptiveCells(selected)
	todo := make([]study.Run, 0, len(flat))
	for _, pr := range flat {
		kind, ok := prev[pr.RunID]
		switch {
		case !ok:
		case kind == "":
			sum.Skipped++
			continue
		case !r.reruns(kind):
			if sum.Left == nil {
				sum.Left = map[errkind.Kind]int{}
			}
			sum.Left[kind]++
			continue
		}
		todo = append(todo, pr)
	}
	// Runs start in waves over their cells, the cells interleaved
	// (schedule.go): every model, task and condition early.
	todo = schedule(r.study.Seed, todo)
	if len(sum.Left) > 0 {
		r.log.Info("errored runs left as they are", "left", sum.Left, "hint", "--rerun truncated,refused runs them again")
	}
	money, err := r.newSpend()
	if err != nil {
		return sum, fmt.Errorf("resume: %w", err)
	}
	sum.CostLimit = money.budget.Limit()
	r.log.Info("study starting", "study", r.study.Name, "planned", len(plan), "selected", len(selected), "to_run", len(todo), "backend", r.backend.Name(), "output", r.opts.Output)

	var prog *Progress
	if r.opts.Progress != nil && (len(todo) > 0 || len(cells) == 0) {
		prog = NewProgress(r.opts.Progress, len(todo))
		if r.priced() || money.budget.Limit() > 0 {
			prog.Spent(money.budget.Spent())
		}
	}
	var smu sync.Mutex
	rc := &recorder{w: w, canaries: &canaries, money: money, mu: &smu, sum: &sum, prog: prog, writers: make(chan struct{}, recordWriters())}
	g, gctx := errgroup.WithContext(ctx)
	// A run takes its slot before it reserves its cost, so that the
	// estimate is made when it can start, against the runs then in flight.
	// It frees the slot once it is done with its sandbox and models, and
	// its record is written beside the next run: up to concurrency runs
	// in flight, and runs in flight and records being written together
	// at most twice that.
	slots := make(chan struct{}, max(1, r.study.Concurrency))
	g.SetLimit(2 * cap(slots))
	for _, pr := range todo {
		select {
		case slots <- struct{}{}:
		case <-gctx.Done():
		}
		if gctx.Err() != nil {
			break
		}
		est, ok := money.reserve(gctx, pr)
		if !ok {
			// The next run could pass the limit even once the runs in
			// flight are recorded (or the study was stopped): start no more.
			<-slots
			break
		}
		g.Go(func() error {
			free := sync.OnceFunc(func() { <-slots })
			if _, _, err := r.runReserved(gctx, rc, pr, est, nil, free); err != nil {
				// The study stops: the slot stays taken, so that no run
				// starts in it before the error has cancelled gctx.
				return err
			}
			free()
			return nil
		})
	}
	err = g.Wait()
	if prog != nil {
		prog.Finish()
	}
	if err == nil && ctx.Err() == nil {
		err = r.runCells(ctx, cells, *rc)
	}
	if sn, ok := r.backend.(snapshotter); ok {
		// Snapshots are made as tasks first run: record their digests now.
		if r.opts.Manifest == nil {
			r.opts.Manifest = map[string]any{}
		}
		r.opts.Manifest["snapshots"] = sn.Snapshots()
		if merr := r.writeManifest(hash, len(plan), true); merr != nil && err == nil {
			err = merr
		}
	}
	// A run that a resume ran again superseded its errored line: compact
	// now, so the folder holds one line per run id when the study ends.
	closed = true
	if cerr := w.Close(); cerr != nil && err == nil {
		err = fmt.Errorf("record: %w", cerr)
	}
	if _, cerr := results.Compact(r.opts.Output); cerr != nil && err == nil {
		err = cerr
	}
	sum.Spent = money.budget.Spent()
	if money.budget.Reached() && err == nil && ctx.Err() == nil {
		sum.CostStopped = money.budget.Reason()
		r.log.Warn("cost limit reached", "limit", cost.Dollars(sum.CostLimit), "spent", cost.Dollars(sum.Spent), "finished", sum.Ran, "remaining", len(todo)-sum.Ran)
		return sum, fmt.Errorf("%w: %s", ErrCostLimit, sum.CostStopped)
	}
	if ctx.Err() != nil {
		sum.Canceled = true
		r.log.Info("study interrupted", "finished", sum.Ran, "remaining", len(todo)-sum.Ran)
		return sum, nil
	}
	return sum, err
}

// selectRuns applies the selection to the full plan; it refuses a
// selection that keeps no run.
func (r *Runner) selectRuns(plan []study.Run) ([]study.Run, error) {
	sel := r.opts.Selection
	if sel == nil {
		return plan, nil
	}
	kept := sel.Apply(plan)
	if len(kept) == 0 {
		return nil, fmt.Errorf("the selection %s keeps none of the study's %d runs", sel, len(plan))
	}
	return kept, nil
}

// prepareOutput checks the study folder. A new study gets its study.hcl and
// manifest.json before anything else, so a folder that holds runs always
// holds what --resume needs; a resumed one must hold the same plan.
func (r *Runner) prepareOutput(hash string, planned int) error {
	dir := r.opts.Output
	held := false
	for _, name := range []string{results.RunsFile, results.ManifestFile} {
		if _, err := os.Stat(filepath.Join(dir, name)); err == nil {
			held = true
		}
	}
	if held && !r.opts.Resume {
		return fmt.Errorf("%s already holds a study: resume it with --resume (a subset or the full study) or choose another --output", dir)
	}
	if !held {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return fmt.Errorf("output: %w", err)
		}
		if err := results.WriteFile(dir, results.StudyFile, r.study.Source); err != nil {
			return fmt.Errorf("output: %w", err)
		}
		if err := r.writeTaskDefs(); err != nil {
			return fmt.Errorf("output: %w", err)
		}
		return r.writeManifest(hash, planned, false)
	}
	m, err := results.ReadManifest(dir)
	if err != nil {
		return err
	}
	for i, now := range r.defs {
		was, ok := m.Task(now.Name)
		if ok && was.SHA256 == now.SHA256 {
			// The same definition: where it was first read from stays on
			// record (a resume from the folder reads it from task_defs/).
			r.defs[i].Source = was.Source
		}
		if ok && was.SHA256 != now.SHA256 {
			return fmt.Errorf("task %s changed since %s was started (its definition there, %s, has sha256 %.12s; now %.12s from %s): run it into a new --output",
				now.Name, dir, was.File, was.SHA256, now.SHA256, now.Source)
		}
	}
	for i, now := range r.atkDefs {
		was, ok := m.Attack(now.Name)
		if ok && was.SHA256 == now.SHA256 {
			r.atkDefs[i].Source = was.Source
		}
		if ok && was.SHA256 != now.SHA256 {
			return fmt.Errorf("attack %s changed since %s was started (its definition there, %s, has sha256 %.12s; now %.12s from %s): run it into a new --output",
				now.Name, dir, was.File, was.SHA256, now.SHA256, now.Source)
		}
	}
	if m.PlanHash != hash {
		return fmt.Errorf("the study file changed the plan since %s was started (plan %s, now %s; a selection never changes it): run it into a new --output", dir, m.PlanHash, hash)
	}
	if err := r.writeAttackDefs(); err != nil {
		return fmt.Errorf("output: %w", err)
	}
	return r.writeManifest(hash, planned, false)
}

// reruns reports whether a resume runs a run that errored this way again.
func (r *Runner) reruns(kind errkind.Kind) bool {
	if kind != errkind.Truncated && kind != errkind.Refused && kind != errkind.Attacker {
		return true
	}
	return slices.Contains(r.opts.Rerun, kind)
}

// finished reads a compacted study folder: each recorded run id with the
// kind of its error ("" when it finished without one; an errored line that
// names no kind counts as internal), and every canary the study used, in
// its runs, in their retried tries and in attempts.jsonl.
func finished(dir string) (map[string]errkind.Kind, []string, error) {
	done := map[string]errkind.Kind{}
	var used []string
	canaries := func(run results.Run) {
		if run.Canary != "" {
			used = append(used, run.Canary)
		}
		for _, a := range run.AttemptErrors {
			if a.Canary != "" {
				used = append(used, a.Canary)
			}
		}
	}
	err := results.ReadRuns(filepath.Join(dir, results.RunsFile), func(run results.Run) error {
		canaries(run)
		kind := run.ErrorKind
		switch {
		case run.Error == "":
			kind = ""
		case kind == "":
			kind = errkind.Internal
		}
		done[run.RunID] = kind
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	err = results.ReadAttempts(dir, func(run results.Run) error {
		canaries(run)
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	return done, used, nil
}
