package results

import (
	"encoding/json"
	"fmt"
	"github.com/killchain/killchain/internal/cost"
	"os"
	"path/filepath"
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
	// Tasks are the definitions of the tasks the plan runs, each copied
	// into the folder (TaskDefsDir) as it ran.
	Tasks []TaskInfo `json:"tasks,omitempty"`
	// Attacks are the attack families of the study's task files (attack
	// blocks), each copied into the folder (AttackDefsDir) as it ran; a
	// study file's own are in its study.hcl.
	Attacks []AttackInfo   `json:"attacks,omitempty"`
	Extra   map[string]any `json:"extra,omitempty"`
}

// AttackDefsDir is the folder of a study folder that keeps the attack
// blocks of the study's task files, one file each (AttackInfo.File).
const AttackDefsDir = "attack_defs"

// AttackInfo is one attack family a study's task file defined.
type AttackInfo struct {
	Name   string `json:"name"`
	SHA256 string `json:"sha256"` // of its goal and template: the same for families that plant the same
	Source string `json:"source"` // the task file that defined it
	File   string `json:"file"`   // its copy, relative to the study folder
}

// Attack returns a task file's attack family by name.
func (m Manifest) Attack(name string) (AttackInfo, bool) {
	for _, a := range m.Attacks {
		if a.Name == name {
			return a, true
		}
	}
	return AttackInfo{}, false
}

// TaskDefsDir is the folder of a study folder that keeps the exact
// definition of every task the study ran, one self-contained task file
// each (TaskInfo.File), in the form tasks.Encode writes.
const TaskDefsDir = "task_defs"

// TaskInfo is one task definition a study ran.
type TaskInfo struct {
	Name    string `json:"name"`
	SHA256  string `json:"sha256"`  // tasks.Task.Hash: the same for definitions that run the same
	Builtin bool   `json:"builtin"` // embedded in the tool, rather than the study's own
	Source  string `json:"source"`  // where it was defined: the task file or study file, or "built-in"
	File    string `json:"file"`    // its copy, relative to the study folder
}

// Task returns the definition of a task by name.
func (m Manifest) Task(name string) (TaskInfo, bool) {
	for _, t := range m.Tasks {
		if t.Name == name {
			return t, true
		}
	}
	return TaskInfo{}, false
}

// SelectionRecord is a study.Selection as manifest.json records it, with
// the number of the full plan's runs it kept.
type SelectionRecord struct {
	Tasks      []string `json:"tasks,omitempty"`
	SkipTasks  []string `json:"skip_tasks,omitempty"`
	Models     []string `json:"models,omitempty"`
	Grids      []string `json:"grids,omitempty"`
	Conditions []string `json:"conditions,omitempty"`
	Defenses   []string `json:"defenses,omitempty"`
	Sample     int      `json:"sample,omitempty"`
	SampleSeed *int64   `json:"sample_seed,omitempty"` // set when Sample is
	Selected   int      `json:"selected_runs"`
	Args       string   `json:"args"` // the flags that select the same runs again
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
	// Price is the model's price as the study ran it (dollars per million
	// tokens); absent for scripted models and models without one.
	Price *cost.Price `json:"price,omitempty"`
}

// ReadManifest reads a study folder's manifest.json.
func ReadManifest(dir string) (Manifest, error) {
	var m Manifest
	data, err := os.ReadFile(filepath.Join(dir, ManifestFile))
	if err != nil {
		return m, fmt.Errorf("manifest: %w", err)
	}
	if err := json.Unmarshal(data, &m); err != nil {
		return m, fmt.Errorf("manifest %s: %w", filepath.Join(dir, ManifestFile), err)
	}
	return m, nil
}
