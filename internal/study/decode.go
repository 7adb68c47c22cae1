package study

import (
	"fmt"
	"os"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"

	"github.com/killchain/killchain/internal/cost"
	"github.com/killchain/killchain/internal/hcldiag"
	"github.com/killchain/killchain/tasks"
)

// rootSchema is the top level of a study file.
var rootSchema = &hcl.BodySchema{
	Blocks: []hcl.BlockHeaderSchema{
		{Type: "study", LabelNames: []string{"name"}},
		{Type: "model", LabelNames: []string{"name"}},
		{Type: "condition", LabelNames: []string{"name"}},
		{Type: "defense", LabelNames: []string{"name"}},
		{Type: "grid", LabelNames: []string{"name"}},
		{Type: "threshold", LabelNames: []string{"name"}},
		{Type: "task", LabelNames: []string{"name"}},
		{Type: "environment", LabelNames: []string{"name"}},
		{Type: "injection", LabelNames: []string{"name"}},
		{Type: "suite", LabelNames: []string{"name"}},
		{Type: "attack", LabelNames: []string{"name"}},
		{Type: "attacker", LabelNames: []string{"name"}},
	},
}

// Raw block bodies as gohcl decodes them; pointers tell "absent" apart
// from a zero value so that defaults apply only to absent attributes.
type rawStudy struct {
	Seed        *int64   `hcl:"seed,optional"`
	Concurrency *int     `hcl:"concurrency,optional"`
	Output      *string  `hcl:"output,optional"`
	Sandbox     *string  `hcl:"sandbox,optional"`
	Classifier  *string  `hcl:"classifier,optional"`
	MemoryMB    *int     `hcl:"memory_mb,optional"`
	CPUs        *float64 `hcl:"cpus,optional"`
	PidsLimit   *int     `hcl:"pids_limit,optional"`
	Runtime     *string  `hcl:"runtime,optional"`
	MaxTurns    *int     `hcl:"max_turns,optional"`

	HeavyConcurrency *int     `hcl:"heavy_concurrency,optional"`
	WarmPool         *int     `hcl:"warm_pool,optional"`
	Attempts         *int     `hcl:"attempts,optional"`
	RetryBackoff     *string  `hcl:"retry_backoff,optional"`
	HackClassifier   *string  `hcl:"hack_classifier,optional"`
	AllowHostShell   *bool    `hcl:"allow_host_shell,optional"`
	TaskFiles        []string `hcl:"task_files,optional"`
	Pricing          *string  `hcl:"pricing,optional"`
	CostLimit        *float64 `hcl:"cost_limit,optional"`

	Kubernetes *rawKubernetes `hcl:"kubernetes,block"`
}

type rawModel struct {
	Provider        string   `hcl:"provider"`
	Policy          *string  `hcl:"policy,optional"`
	Name            *string  `hcl:"name,optional"`
	BaseURL         *string  `hcl:"base_url,optional"`
	Host            *string  `hcl:"host,optional"`
	APIKeyEnv       *string  `hcl:"api_key_env,optional"`
	Temperature     *float64 `hcl:"temperature,optional"`
	MaxTokens       *int     `hcl:"max_tokens,optional"`
	Seed            *int64   `hcl:"seed,optional"`
	Thinking        *bool    `hcl:"thinking,optional"`
	ThinkingBudget  *int     `hcl:"thinking_budget,optional"`
	ReasoningEffort *string  `hcl:"reasoning_effort,optional"`
	API             *string  `hcl:"api,optional"`
	Timeout         *string  `hcl:"timeout,optional"`
	MaxRetries      *int     `hcl:"max_retries,optional"`
	MaxConcurrency  *int     `hcl:"max_concurrency,optional"`

	Price *cost.Price `hcl:"price,block"`
}

type rawCondition struct {
	Payload      bool    `hcl:"payload"`
	Instructions *string `hcl:"instructions,optional"`
}

type rawDefense struct {
	Kind       string   `hcl:"kind"`
	Patterns   []string `hcl:"patterns,optional"`
	Datamark   *bool    `hcl:"datamark,optional"`
	Classifier *string  `hcl:"classifier,optional"`
}

type rawGrid struct {
	Batch      *string    `hcl:"batch,optional"`
	Tasks      []string   `hcl:"tasks,optional"`
	Suites     []string   `hcl:"suites,optional"`
	UserTasks  []string   `hcl:"user_tasks,optional"`
	Injections []string   `hcl:"injections,optional"`
	Variants   []string   `hcl:"variants,optional"`
	Models     []string   `hcl:"models,optional"`
	Pairs      [][]string `hcl:"pairs,optional"`
	Conditions []string   `hcl:"conditions"`
	Defenses   []string   `hcl:"defenses,optional"`
	Repeats    *int       `hcl:"repeats,optional"`
	Attacks    []string   `hcl:"attacks,optional"`
	Attacker   *string    `hcl:"attacker,optional"`
}

// Load reads and parses a study file.
func Load(path string) (*Study, hcl.Diagnostics) {
	src, err := os.ReadFile(path)
	if err != nil {
		return nil, hcl.Diagnostics{{
			Severity: hcl.DiagError,
			Summary:  "Cannot read study file",
			Detail:   fmt.Sprintf("read %s: %v", path, err),
		}}
	}
	return Parse(path, src)
}

// Parse decodes and validates a study file. It reports every problem it
// finds, each with the source range it concerns; the study is nil when
// any diagnostic is an error.
func Parse(filename string, src []byte) (*Study, hcl.Diagnostics) {
	file, diags := hclsyntax.ParseConfig(src, filename, hcl.Pos{Line: 1, Column: 1})
	if diags.HasErrors() {
		return nil, diags
	}
	d := &decoder{file: file, study: &Study{File: filename, Source: src}}
	d.decode()
	hcldiag.Sort(d.diags)
	if d.diags.HasErrors() {
		return nil, d.diags
	}
	return d.study, d.diags
}

// decoder carries the state of one Parse.
type decoder struct {
	file  *hcl.File
	study *Study
	diags hcl.Diagnostics

	modelRanges map[string]hcl.Range // where each model was declared
	// thresholdBlocks are the blocks of study.Thresholds, index by index.
	thresholdBlocks []*hcl.Block
	taskFiles       *hcldiag.Block // the study block, where task_files stands
	pricing         *hcldiag.Block // the study block, where pricing stands
	// withTasks, when set, changes the study's task set once its tasks are
	// decoded (tests add suites built in Go with it).
	withTasks func(*tasks.Set) *tasks.Set
}

func (d *decoder) decode() {
	l := &hcldiag.List{}
	content := hcldiag.Content(l, d.file.Body, rootSchema, "A study file")
	tasks.CheckPlaceholders(l, d.study.File, d.study.Source, d.file.Body, tasks.DecodedBlocks...)
	d.diags = append(d.diags, l.Diags...)

	var studies, models, conditions, defenses, grids, thresholds, taskBlocks, attackBlocks, attackerBlocks []*hcl.Block
	for _, b := range content.Blocks {
		switch b.Type {
		case "study":
			studies = append(studies, b)
		case "model":
			models = append(models, b)
		case "condition":
			conditions = append(conditions, b)
		case "defense":
			defenses = append(defenses, b)
		case "grid":
			grids = append(grids, b)
		case "threshold":
			thresholds = append(thresholds, b)
		case "task", "environment", "injection", "suite":
			taskBlocks = append(taskBlocks, b)
		case "attack":
			attackBlocks = append(attackBlocks, b)
		case "attacker":
			attackerBlocks = append(attackerBlocks, b)
		}
	}

	// Models first: the study's classifier and the defenses refer to them.
	d.decodeModels(models)
	d.decodeStudy(studies)
	d.decodePrices()
	// Tasks next: the grids and thresholds name them.
	fileAttacks := d.decodeTasks(taskBlocks)
	if d.withTasks != nil {
		d.study.Tasks = d.withTasks(d.study.Tasks)
	}
	d.decodeAttacks(attackBlocks, fileAttacks)
	d.decodeConditions(conditions)
	d.decodeDefenses(defenses)
	d.decodeAttackers(attackerBlocks)
	for _, b := range grids {
		d.decodeGrid(b)
	}
	d.checkDuplicates("grid", grids)
	d.decodeThresholds(thresholds)
	if !d.diags.HasErrors() && len(d.study.Thresholds) > 0 {
		if plan, err := d.study.Plan(); err == nil {
			d.checkReachable(plan)
		}
	}
}

// errorf appends an error diagnostic about rng.
func (d *decoder) errorf(rng *hcl.Range, summary, format string, args ...any) {
	d.diags = append(d.diags, &hcl.Diagnostic{
		Severity: hcl.DiagError,
		Summary:  summary,
		Detail:   fmt.Sprintf(format, args...),
		Subject:  rng,
	})
}

// warnf appends a warning diagnostic about rng.
func (d *decoder) warnf(rng *hcl.Range, summary, format string, args ...any) {
	d.diags = append(d.diags, &hcl.Diagnostic{
		Severity: hcl.DiagWarning,
		Summary:  summary,
		Detail:   fmt.Sprintf(format, args...),
		Subject:  rng,
	})
}

// block decodes a block body into raw with gohcl (strictly: an unknown
// attribute or block is an error with the closest known name) and returns
// its context.
func (d *decoder) block(b *hcl.Block, raw any) *hcldiag.Block {
	l := &hcldiag.List{}
	bc := hcldiag.Decode(l, b, nil, raw)
	d.diags = append(d.diags, l.Diags...)
	d.checkLabel(b)
	return bc
}

// checkLabel reports a block label that is not a plain name.
func (d *decoder) checkLabel(b *hcl.Block) {
	name := b.Labels[0]
	if !hcldiag.ValidName(name) {
		d.errorf(hcldiag.LabelRange(b), "Invalid "+b.Type+" name",
			"The %s name %q must start with a letter or digit and hold only letters, digits, '.', '_' and '-'.", b.Type, name)
	}
}

// checkDuplicates reports every block whose label repeats an earlier one.
func (d *decoder) checkDuplicates(kind string, blocks []*hcl.Block) {
	first := map[string]*hcl.Block{}
	for _, b := range blocks {
		name := b.Labels[0]
		if prev, dup := first[name]; dup {
			d.errorf(hcldiag.LabelRange(b), "Duplicate "+kind+" block",
				"A %s named %q was already declared at %s.", kind, name, hcldiag.RangeString(prev.DefRange))
			continue
		}
		first[name] = b
	}
}
