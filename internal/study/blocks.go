package study

import (
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/hashicorp/hcl/v2"

	"github.com/killchain/killchain/internal/defense/kinds"
	"github.com/killchain/killchain/internal/hcldiag"
	"github.com/killchain/killchain/tasks"
)

// decodeStudy decodes the one study block.
func (d *decoder) decodeStudy(blocks []*hcl.Block) {
	if len(blocks) == 0 {
		start := hcl.Pos{Line: 1, Column: 1, Byte: 0}
		d.errorf(&hcl.Range{Filename: d.study.File, Start: start, End: start}, "Missing study block",
			"A study file needs exactly one study \"name\" { ... } block.")
		return
	}
	for _, b := range blocks[1:] {
		d.errorf(hcldiag.LabelRange(b), "Duplicate study block",
			"A study file holds exactly one study block; the first is at %s.", hcldiag.RangeString(blocks[0].DefRange))
	}
	var raw rawStudy
	bc := d.block(blocks[0], &raw)
	s := d.study
	s.Name = bc.Name
	s.Seed = deref(raw.Seed, 0)
	s.Concurrency = deref(raw.Concurrency, DefaultConcurrency)
	s.Output = deref(raw.Output, "runs/"+s.Name)
	s.Sandbox = deref(raw.Sandbox, DefaultSandbox)
	s.Classifier = deref(raw.Classifier, "")
	s.MemoryMB = deref(raw.MemoryMB, 0)
	s.CPUs = deref(raw.CPUs, 0)
	s.PidsLimit = deref(raw.PidsLimit, 0)
	s.Runtime = deref(raw.Runtime, DefaultRuntime)
	s.MaxTurns = deref(raw.MaxTurns, DefaultMaxTurns)
	s.HeavyConcurrency = deref(raw.HeavyConcurrency, 0)
	s.WarmPool = deref(raw.WarmPool, DefaultWarmPool)
	s.Attempts = deref(raw.Attempts, DefaultAttempts)
	s.RetryBackoff = DefaultRetryBackoff
	s.HackClassifier = deref(raw.HackClassifier, "")
	s.AllowHostShell = deref(raw.AllowHostShell, false)
	s.TaskFiles = raw.TaskFiles
	s.Pricing = deref(raw.Pricing, "")
	s.CostLimit = deref(raw.CostLimit, 0)
	d.pricing = bc
	if bc.OK("cost_limit") && !(s.CostLimit >= 0) {
		d.errorf(bc.Rng("cost_limit"), "Invalid cost_limit", "cost_limit is in US dollars and must not be negative; got %g.", s.CostLimit)
	}
	d.taskFiles = bc

	if bc.OK("concurrency") && s.Concurrency <= 0 {
		d.errorf(bc.Rng("concurrency"), "Invalid concurrency", "concurrency must be at least 1; got %d.", s.Concurrency)
	}
	if bc.OK("output") && strings.TrimSpace(s.Output) == "" {
		d.errorf(bc.Rng("output"), "Invalid output", "output must name a folder.")
	}
	d.oneOf(bc, "sandbox", s.Sandbox, []string{"docker", "local", "kubernetes"}, "sandbox")
	d.decodeKubernetes(bc, raw.Kubernetes)
	d.oneOf(bc, "runtime", s.Runtime, []string{"runc", "runsc"}, "runtime")
	d.notNegative(bc, "memory_mb", s.MemoryMB)
	d.notNegative(bc, "pids_limit", s.PidsLimit)
	if bc.OK("cpus") && s.CPUs < 0 {
		d.errorf(bc.Rng("cpus"), "Invalid cpus", "cpus must not be negative; got %g.", s.CPUs)
	}
	if bc.OK("max_turns") && s.MaxTurns < 1 {
		d.errorf(bc.Rng("max_turns"), "Invalid max_turns", "max_turns must be at least 1; got %d.", s.MaxTurns)
	}
	if bc.OK("classifier") && s.Classifier != "" {
		d.knownModel(bc.Rng("classifier"), s.Classifier, "the study's classifier")
	}
	if bc.OK("hack_classifier") && s.HackClassifier != "" {
		d.knownModel(bc.Rng("hack_classifier"), s.HackClassifier, "the study's hack classifier")
	}
	d.notNegative(bc, "heavy_concurrency", s.HeavyConcurrency)
	d.notNegative(bc, "warm_pool", s.WarmPool)
	if bc.OK("attempts") && s.Attempts < 1 {
		d.errorf(bc.Rng("attempts"), "Invalid attempts",
			"attempts counts the first try and its retries and must be at least 1; got %d.", s.Attempts)
	}
	if bc.OK("retry_backoff") {
		dur, err := time.ParseDuration(*raw.RetryBackoff)
		switch {
		case err != nil:
			d.errorf(bc.Rng("retry_backoff"), "Invalid duration",
				"retry_backoff must be a duration such as \"500ms\" or \"2s\"; %q is not one.", *raw.RetryBackoff)
		case dur < 0:
			d.errorf(bc.Rng("retry_backoff"), "Invalid duration", "retry_backoff must not be negative; got %q.", *raw.RetryBackoff)
		default:
			s.RetryBackoff = dur
		}
	}
}

// decodeModels decodes every model block.
func (d *decoder) decodeModels(blocks []*hcl.Block) {
	d.modelRanges = map[string]hcl.Range{}
	for _, b := range blocks {
		var raw rawModel
		bc := d.block(b, &raw)
		if prev, dup := d.modelRanges[bc.Name]; dup {
			d.errorf(hcldiag.LabelRange(b), "Duplicate model block",
				"A model named %q was already declared at %s.", bc.Name, hcldiag.RangeString(prev))
			continue
		}
		d.modelRanges[bc.Name] = b.DefRange
		d.study.Models = append(d.study.Models, d.model(bc, &raw))
	}
}

// model checks one model block and applies its defaults.
func (d *decoder) model(bc *hcldiag.Block, raw *rawModel) *Model {
	m := &Model{
		Name:            bc.Name,
		Provider:        raw.Provider,
		Policy:          deref(raw.Policy, ""),
		ModelName:       deref(raw.Name, ""),
		BaseURL:         deref(raw.BaseURL, ""),
		Host:            deref(raw.Host, ""),
		APIKeyEnv:       deref(raw.APIKeyEnv, ""),
		Temperature:     deref(raw.Temperature, 0),
		MaxTokens:       deref(raw.MaxTokens, DefaultMaxTokens),
		Seed:            raw.Seed,
		Thinking:        deref(raw.Thinking, false),
		ThinkingBudget:  deref(raw.ThinkingBudget, 0),
		ReasoningEffort: deref(raw.ReasoningEffort, ""),
		API:             deref(raw.API, ""),
		Timeout:         DefaultTimeout,
		MaxRetries:      deref(raw.MaxRetries, DefaultMaxRetries),
		MaxConcurrency:  deref(raw.MaxConcurrency, 0),
	}
	if raw.Price != nil {
		p := *raw.Price
		for _, err := range p.Validate() {
			d.errorf(bc.Rng("price"), "Invalid price", "Model %q: %v.", bc.Name, err)
		}
		m.Price, m.PriceFrom = &p, "price block"
	}
	known := d.oneOf(bc, "provider", m.Provider, Providers, "provider")
	scripted := m.Provider == ProviderScripted
	switch {
	case !known:
	case scripted && !bc.OK("policy") && !bc.Bad["policy"]:
		d.errorf(bc.Rng("provider"), "Missing policy",
			"Model %q is scripted and needs a policy: one of %s.", m.Name, hcldiag.QuoteList(Policies))
	case scripted:
		d.oneOf(bc, "policy", m.Policy, Policies, "policy")
	default:
		if bc.OK("policy") {
			d.errorf(bc.Rng("policy"), "Policy on a non-scripted model",
				"policy applies only to scripted models; model %q uses provider %q.", m.Name, m.Provider)
		}
		if !bc.OK("name") && !bc.Bad["name"] || bc.OK("name") && strings.TrimSpace(m.ModelName) == "" {
			d.errorf(bc.Rng("name"), "Missing model name",
				"Model %q uses provider %q and needs name = the provider's model id.", m.Name, m.Provider)
		}
	}
	if m.Provider == ProviderOpenAICompatible && !bc.OK("base_url") && !bc.Bad["base_url"] {
		d.errorf(bc.Rng("provider"), "Missing base_url",
			"Model %q uses provider openai_compatible and needs base_url.", m.Name)
	}
	if bc.OK("api") {
		if m.Provider != ProviderOpenAI {
			d.errorf(bc.Rng("api"), "api on a non-openai model",
				"api chooses between OpenAI's chat and responses APIs; model %q uses provider %q.", m.Name, m.Provider)
		} else {
			d.oneOf(bc, "api", m.API, []string{"chat", "responses"}, "api")
		}
	} else if m.Provider == ProviderOpenAI {
		m.API = "chat"
	}
	if bc.OK("temperature") && (m.Temperature < 0 || m.Temperature > 2) {
		d.errorf(bc.Rng("temperature"), "Invalid temperature", "temperature must lie in [0, 2]; got %g.", m.Temperature)
	}
	if bc.OK("max_tokens") && m.MaxTokens < 1 {
		d.errorf(bc.Rng("max_tokens"), "Invalid max_tokens", "max_tokens must be at least 1; got %d.", m.MaxTokens)
	}
	d.notNegative(bc, "thinking_budget", m.ThinkingBudget)
	if bc.OK("thinking_budget") && m.ThinkingBudget > 0 && !m.Thinking {
		d.errorf(bc.Rng("thinking_budget"), "thinking_budget without thinking",
			"Model %q sets thinking_budget but not thinking = true.", m.Name)
	}
	d.notNegative(bc, "max_retries", m.MaxRetries)
	d.notNegative(bc, "max_concurrency", m.MaxConcurrency)
	if bc.OK("timeout") {
		dur, err := time.ParseDuration(*raw.Timeout)
		switch {
		case err != nil:
			d.errorf(bc.Rng("timeout"), "Invalid duration",
				"timeout must be a duration such as \"60s\" or \"2m\"; %q is not one.", *raw.Timeout)
		case dur <= 0:
			d.errorf(bc.Rng("timeout"), "Invalid duration", "timeout must be positive; got %q.", *raw.Timeout)
		default:
			m.Timeout = dur
		}
	}
	return m
}

// decodeConditions adds the declared conditions after the built-ins.
func (d *decoder) decodeConditions(blocks []*hcl.Block) {
	d.study.Conditions = builtinConditions()
	first := map[string]hcl.Range{}
	for _, b := range blocks {
		var raw rawCondition
		bc := d.block(b, &raw)
		if c, ok := d.study.Condition(bc.Name); ok && c.Builtin {
			d.errorf(hcldiag.LabelRange(b), "Built-in condition redeclared",
				"%q is a built-in condition (plain, hack, narrate); give this one another name.", bc.Name)
			continue
		}
		if prev, dup := first[bc.Name]; dup {
			d.errorf(hcldiag.LabelRange(b), "Duplicate condition block",
				"A condition named %q was already declared at %s.", bc.Name, hcldiag.RangeString(prev))
			continue
		}
		first[bc.Name] = b.DefRange
		d.study.Conditions = append(d.study.Conditions, &Condition{
			Name: bc.Name, Payload: raw.Payload, Instructions: deref(raw.Instructions, ""),
		})
	}
}

// decodeDefenses adds the declared defenses after the built-ins.
func (d *decoder) decodeDefenses(blocks []*hcl.Block) {
	d.study.Defenses = builtinDefenses(d.study.Classifier)
	first := map[string]hcl.Range{}
	for _, b := range blocks {
		var raw rawDefense
		bc := d.block(b, &raw)
		if def, ok := d.study.Defense(bc.Name); ok && def.Builtin {
			d.errorf(hcldiag.LabelRange(b), "Built-in defense redeclared",
				"%q is a built-in defense (none, write_filter, pi_detector, spotlighting, all); give this one another name.", bc.Name)
			continue
		}
		if prev, dup := first[bc.Name]; dup {
			d.errorf(hcldiag.LabelRange(b), "Duplicate defense block",
				"A defense named %q was already declared at %s.", bc.Name, hcldiag.RangeString(prev))
			continue
		}
		first[bc.Name] = b.DefRange
		d.study.Defenses = append(d.study.Defenses, d.defense(bc, &raw))
	}
}

// defense checks one defense block.
func (d *decoder) defense(bc *hcldiag.Block, raw *rawDefense) *Defense {
	def := &Defense{
		Name:       bc.Name,
		Kind:       raw.Kind,
		Patterns:   raw.Patterns,
		Datamark:   deref(raw.Datamark, false),
		Classifier: deref(raw.Classifier, d.study.Classifier),
	}
	if !d.oneOf(bc, "kind", def.Kind, DefenseKinds, "defense kind") {
		return def
	}
	uses := func(kind string) bool { return def.Kind == kind || def.Kind == kinds.All }
	if bc.OK("patterns") {
		if !uses(kinds.WriteFilter) {
			d.errorf(bc.Rng("patterns"), "Unused attribute", "patterns apply to write_filter defenses; %q is %s.", def.Name, def.Kind)
		}
		for i, p := range def.Patterns {
			if _, err := regexp.Compile(p); err != nil {
				d.errorf(bc.Elem("patterns", i), "Invalid pattern", "pattern %q is not a Go regular expression: %v.", p, err)
			}
		}
	}
	if bc.OK("datamark") && !uses(kinds.Spotlighting) {
		d.errorf(bc.Rng("datamark"), "Unused attribute", "datamark applies to spotlighting defenses; %q is %s.", def.Name, def.Kind)
	}
	if bc.OK("classifier") {
		if !uses(kinds.PIDetector) {
			d.errorf(bc.Rng("classifier"), "Unused attribute", "classifier applies to pi_detector defenses; %q is %s.", def.Name, def.Kind)
		} else if def.Classifier != "" {
			d.knownModel(bc.Rng("classifier"), def.Classifier, fmt.Sprintf("defense %q's classifier", def.Name))
		}
	}
	return def
}

// knownModel reports a reference to an undeclared model.
func (d *decoder) knownModel(rng *hcl.Range, name, what string) bool {
	if _, ok := d.modelRanges[name]; ok {
		return true
	}
	d.errorf(rng, "Unknown model", "%s names model %q, which no model block declares%s.", what, name, known(name, d.modelNames()))
	return false
}

// modelNames lists the declared models.
func (d *decoder) modelNames() []string {
	out := make([]string, 0, len(d.study.Models))
	for _, m := range d.study.Models {
		out = append(out, m.Name)
	}
	return out
}

// oneOf reports a present attribute whose value is not one of allowed; it
// returns whether the value is allowed.
func (d *decoder) oneOf(bc *hcldiag.Block, attr, value string, allowed []string, what string) bool {
	if slices.Contains(allowed, value) {
		return true
	}
	if bc.Bad[attr] {
		return false
	}
	d.errorf(bc.Rng(attr), "Unknown "+what, "%q is not a valid %s; use one of %s.", value, what, hcldiag.QuoteList(allowed))
	return false
}

// notNegative reports a present integer attribute below zero.
func (d *decoder) notNegative(bc *hcldiag.Block, attr string, v int) {
	if bc.OK(attr) && v < 0 {
		d.errorf(bc.Rng(attr), "Invalid "+attr, "%s must not be negative; got %d.", attr, v)
	}
}

// deref returns *p, or def when p is nil.
func deref[T any](p *T, def T) T {
	if p == nil {
		return def
	}
	return *p
}

// knownTasks is known for a task name: the nearest of every task's name,
// then the tasks without an environment by name and the user tasks of the
// suites by suite (dozens of them: `killchain tasks` lists them).
func knownTasks(name string, set *tasks.Set) string {
	var scenarios []string
	users := map[string]int{}
	for _, t := range set.All() {
		if t.Environment == nil {
			scenarios = append(scenarios, t.Name)
		} else {
			users[t.Environment.Name]++
		}
	}
	s := known(name, set.Names())
	if len(users) == 0 {
		return s
	}
	i := strings.LastIndex(s, " (known: ")
	if i < 0 {
		return s
	}
	var envs []string
	for _, e := range slices.Sorted(maps.Keys(users)) {
		envs = append(envs, fmt.Sprintf("%d of %s", users[e], e))
	}
	return s[:i] + " (known: " + strings.Join(scenarios, ", ") + "; and the user tasks of the environments (" +
		strings.Join(envs, ", ") + "): killchain tasks lists them)"
}

// known renders the suffix of an unknown-name detail: the known name
// nearest to name when one is close (the suggestion --tasks makes), then
// the known names.
func known(name string, names []string) string {
	if len(names) == 0 {
		return " (none are declared)"
	}
	hint := ""
	if best := hcldiag.Closest(name, names); best != "" {
		hint = fmt.Sprintf("; did you mean %q?", best)
	}
	return hint + " (known: " + strings.Join(names, ", ") + ")"
}
