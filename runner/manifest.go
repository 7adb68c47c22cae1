package runner

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"time"

	"github.com/killchain/killchain/internal/results"
	"github.com/killchain/killchain/internal/study"
)

// Manifest is manifest.json: what ran, with what, from which plan.
type Manifest struct {
	Tool      string   `json:"tool"`
	Version   string   `json:"version"`
	Commit    string   `json:"commit"`
	GoVersion string   `json:"go_version"`
	Study     string   `json:"study"`
	Seed      int64    `json:"seed"`
	PlanHash  string   `json:"plan_hash"`
	Planned   int      `json:"planned_runs"`
	Backend   string   `json:"sandbox_backend"`
	Started   string   `json:"started"`
	Resumed   []string `json:"resumed,omitempty"`
	// Selection is the subset the latest start or resume ran; nil when it
	// ran the full plan.
	Selection *SelectionRecord `json:"selection,omitempty"`
	Models    []ModelInfo      `json:"models"`
	Extra     map[string]any   `json:"extra,omitempty"`
}

// SelectionRecord is a study.Selection as manifest.json records it, with
// the number of the full plan's runs it kept.
type SelectionRecord struct {
	Tasks      []string `json:"tasks,omitempty"`
	Models     []string `json:"models,omitempty"`
	Grids      []string `json:"grids,omitempty"`
	Conditions []string `json:"conditions,omitempty"`
	Defenses   []string `json:"defenses,omitempty"`
	Sample     int      `json:"sample,omitempty"`
	SampleSeed *int64   `json:"sample_seed,omitempty"` // set when Sample is
	Selected   int      `json:"selected_runs"`
	Args       string   `json:"args"` // the flags that select the same runs again
}

// newSelectionRecord records sel, which kept selected runs; nil for none.
func newSelectionRecord(sel *study.Selection, selected int) *SelectionRecord {
	if sel == nil {
		return nil
	}
	rec := &SelectionRecord{
		Tasks: sel.Tasks, Models: sel.Models, Grids: sel.Grids, Conditions: sel.Conditions, Defenses: sel.Defenses,
		Sample: sel.Sample, Selected: selected, Args: sel.String(),
	}
	if sel.Sample > 0 {
		seed := sel.Seed
		rec.SampleSeed = &seed
	}
	return rec
}

// ModelInfo is a model block's identity and settings. API keys never appear:
// only the name of the variable that holds one.
type ModelInfo struct {
	Name            string  `json:"name"`
	Provider        string  `json:"provider"`
	Policy          string  `json:"policy,omitempty"`
	Model           string  `json:"model,omitempty"`
	BaseURL         string  `json:"base_url,omitempty"`
	Host            string  `json:"host,omitempty"`
	APIKeyEnv       string  `json:"api_key_env,omitempty"`
	Temperature     float64 `json:"temperature"`
	MaxTokens       int     `json:"max_tokens"`
	Seed            *int64  `json:"seed,omitempty"`
	Thinking        bool    `json:"thinking"`
	ThinkingBudget  int     `json:"thinking_budget,omitempty"`
	ReasoningEffort string  `json:"reasoning_effort,omitempty"`
	API             string  `json:"api,omitempty"`
}

// ReadManifest reads a study folder's manifest.json.
func ReadManifest(dir string) (Manifest, error) {
	var m Manifest
	data, err := os.ReadFile(filepath.Join(dir, results.ManifestFile))
	if err != nil {
		return m, fmt.Errorf("manifest: %w", err)
	}
	if err := json.Unmarshal(data, &m); err != nil {
		return m, fmt.Errorf("manifest %s: %w", filepath.Join(dir, results.ManifestFile), err)
	}
	return m, nil
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

// writeManifest writes manifest.json at a study's start (or resume) and,
// with update, again at its end, keeping what the start recorded.
func (r *Runner) writeManifest(hash string, planned int, update bool) error {
	now := time.Now().UTC().Format(time.RFC3339)
	m, err := ReadManifest(r.opts.Output)
	switch {
	case err == nil && update:
	case err == nil && r.opts.Resume:
		m.Resumed = append(m.Resumed, now)
	default:
		m = Manifest{Started: now}
	}
	m.Tool = "killchain"
	m.Version, m.Commit = buildInfo()
	m.GoVersion = runtime.Version()
	m.Study, m.Seed, m.PlanHash, m.Planned = r.study.Name, r.study.Seed, hash, planned
	m.Backend = r.backend.Name()
	m.Selection = newSelectionRecord(r.opts.Selection, r.selected)
	m.Models = m.Models[:0]
	for _, b := range r.study.Models {
		m.Models = append(m.Models, ModelInfo{
			Name: b.Name, Provider: b.Provider, Policy: b.Policy, Model: b.ModelName, BaseURL: b.BaseURL, Host: b.Host,
			APIKeyEnv: b.APIKeyEnv, Temperature: b.Temperature, MaxTokens: b.MaxTokens, Seed: b.Seed,
			Thinking: b.Thinking, ThinkingBudget: b.ThinkingBudget, ReasoningEffort: b.ReasoningEffort, API: b.API,
		})
	}
	if len(r.opts.Manifest) > 0 {
		m.Extra = r.opts.Manifest
	}
	return results.WriteJSON(r.opts.Output, results.ManifestFile, m)
}
