package runner

import (
	"path"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"time"

	"github.com/killchain/killchain/internal/results"
	"github.com/killchain/killchain/internal/study"
	"github.com/killchain/killchain/tasks"
)

// newSelectionRecord records sel, which kept selected runs; nil for none.
func newSelectionRecord(sel *study.Selection, selected int) *results.SelectionRecord {
	if sel == nil {
		return nil
	}
	rec := &results.SelectionRecord{
		Tasks: sel.Tasks, SkipTasks: sel.SkipTasks, Models: sel.Models, Grids: sel.Grids, Conditions: sel.Conditions, Defenses: sel.Defenses,
		Sample: sel.Sample, Selected: selected, Args: sel.String(),
	}
	if sel.Sample > 0 {
		seed := sel.Seed
		rec.SampleSeed = &seed
	}
	return rec
}

// Commit and Version are set at link time by the Makefile
// (-ldflags "-X ..."), for builds where Go records no VCS information.
var (
	Commit  = ""
	Version = ""
)

func buildInfo() (version, commit string) {
	version, commit = "dev", "unknown"
	if Version != "" {
		version = Version
	}
	if Commit != "" {
		commit = Commit
	}
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return
	}
	if bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		version = bi.Main.Version
	}
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			commit = s.Value
		case "vcs.modified":
			if s.Value == "true" {
				commit += "+dirty"
			}
		}
	}
	return
}

// taskDefs records the definition of every task the plan runs.
func (r *Runner) taskDefs(plan []study.Run) {
	r.defs, r.defHash = nil, map[string]string{}
	for _, t := range r.study.PlanTasks(plan) {
		src := t.Source.File
		if t.Source.Builtin {
			src = "built-in"
		}
		h := t.Hash()
		r.defHash[t.Name] = h
		r.defs = append(r.defs, results.TaskInfo{Name: t.Name, SHA256: h, Builtin: t.Source.Builtin, Source: src,
			File: path.Join(results.TaskDefsDir, t.Name+".hcl")})
	}
	r.atkDefs = nil
	for _, a := range r.study.FileAttacks {
		r.atkDefs = append(r.atkDefs, results.AttackInfo{Name: a.Family.Name, SHA256: study.AttackHash(a.Family),
			Source: a.File, File: path.Join(results.AttackDefsDir, a.Family.Name+".hcl")})
	}
}

// writeAttackDefs copies every attack block of the study's task files into
// the study folder; a resume writes them again (a family added to a task
// file since is kept beside the others, one that changed is refused first).
func (r *Runner) writeAttackDefs() error {
	if len(r.atkDefs) == 0 {
		return nil
	}
	for i, d := range r.atkDefs {
		if err := results.WriteFile(r.opts.Output, filepath.FromSlash(d.File), r.study.FileAttacks[i].Text); err != nil {
			return err
		}
	}
	return nil
}

// writeTaskDefs copies the definition of every task the plan runs into the
// study folder, self-contained (tasks.Encode), and the attack blocks of its
// task files.
func (r *Runner) writeTaskDefs() error {
	if err := r.writeAttackDefs(); err != nil {
		return err
	}
	for _, d := range r.defs {
		t, _ := r.study.Tasks.Get(d.Name)
		if err := results.WriteFile(r.opts.Output, filepath.FromSlash(d.File), tasks.Encode(t)); err != nil {
			return err
		}
	}
	return nil
}

// writeManifest writes manifest.json at a study's start (or resume) and,
// with update, again at its end, keeping what the start recorded.
func (r *Runner) writeManifest(hash string, planned int, update bool) error {
	now := time.Now().UTC().Format(time.RFC3339)
	m, err := results.ReadManifest(r.opts.Output)
	switch {
	case err == nil && update:
	case err == nil && r.opts.Resume:
		m.Resumed = append(m.Resumed, now)
	default:
		m = results.Manifest{Started: now}
	}
	m.Tool = "killchain"
	m.Version, m.Commit = buildInfo()
	m.GoVersion = runtime.Version()
	m.Study, m.Seed, m.PlanHash, m.Planned = r.study.Name, r.study.Seed, hash, planned
	m.Backend = r.backend.Name()
	m.Selection = newSelectionRecord(r.opts.Selection, r.selected)
	m.Models = m.Models[:0]
	for _, b := range r.study.Models {
		m.Models = append(m.Models, results.ModelInfo{
			Name: b.Name, Provider: b.Provider, Policy: b.Policy, Model: b.ModelName, BaseURL: b.BaseURL, Host: b.Host,
			APIKeyEnv: b.APIKeyEnv, Temperature: b.Temperature, MaxTokens: b.MaxTokens, Seed: b.Seed,
			Thinking: b.Thinking, ThinkingBudget: b.ThinkingBudget, ReasoningEffort: b.ReasoningEffort, API: b.API,
			Price: b.Price,
		})
	}
	m.Tasks = r.defs
	m.Attacks = r.atkDefs
	if len(r.opts.Manifest) > 0 {
		m.Extra = r.opts.Manifest
	}
	return results.WriteJSON(r.opts.Output, results.ManifestFile, m)
}
