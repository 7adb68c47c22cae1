package export

import "encoding/json"

// The Go side of the Inspect AI eval-log objects an export writes. Only the
// fields killchain fills are declared; every field Inspect's schema
// requires is declared without omitempty, so it is written even when empty
// (schema_test.go pins which those are). Field names are Inspect's.

// EvalLog is a whole log: the header (header.json) of a .eval file, and
// with its samples and reductions the .json format.
type EvalLog struct {
	Version     int                    `json:"version"`
	Status      string                 `json:"status"`
	Eval        EvalSpec               `json:"eval"`
	Plan        EvalPlan               `json:"plan"`
	Results     *EvalResults           `json:"results"`
	Stats       EvalStats              `json:"stats"`
	Invalidated bool                   `json:"invalidated"`
	Tags        []string               `json:"tags"`
	Metadata    map[string]any         `json:"metadata"`
	Samples     []EvalSample           `json:"samples,omitempty"`
	Reductions  []EvalSampleReductions `json:"reductions,omitempty"`
}

// logStart is _journal/start.json: what Inspect records when a log opens.
type logStart struct {
	Version int      `json:"version"`
	Eval    EvalSpec `json:"eval"`
	Plan    EvalPlan `json:"plan"`
}

// EvalSpec says what was evaluated: the task, the model, the dataset.
type EvalSpec struct {
	EvalID              string                 `json:"eval_id"`
	RunID               string                 `json:"run_id"`
	Created             string                 `json:"created"`
	Task                string                 `json:"task"`
	TaskID              string                 `json:"task_id"`
	TaskVersion         int                    `json:"task_version"`
	TaskDisplayName     string                 `json:"task_display_name,omitempty"`
	TaskAttribs         map[string]any         `json:"task_attribs"`
	TaskArgs            map[string]any         `json:"task_args"`
	TaskArgsPassed      map[string]any         `json:"task_args_passed"`
	Solver              string                 `json:"solver,omitempty"`
	Dataset             EvalDataset            `json:"dataset"`
	Model               string                 `json:"model"`
	ModelBaseURL        string                 `json:"model_base_url,omitempty"`
	ModelGenerateConfig GenerateConfig         `json:"model_generate_config"`
	ModelArgs           map[string]any         `json:"model_args"`
	ModelRoles          map[string]ModelConfig `json:"model_roles,omitempty"`
	Config              EvalConfig             `json:"config"`
	Packages            map[string]string      `json:"packages"`
	Metadata            map[string]any         `json:"metadata,omitempty"`
}

// EvalDataset names the samples of a log.
type EvalDataset struct {
	Name      string   `json:"name"`
	Location  string   `json:"location"`
	Samples   int      `json:"samples"`
	SampleIDs []string `json:"sample_ids"`
	Shuffled  bool     `json:"shuffled"`
}

// GenerateConfig is a model's generation settings.
type GenerateConfig struct {
	Temperature     *float64 `json:"temperature,omitempty"`
	MaxTokens       int      `json:"max_tokens,omitempty"`
	Seed            *int64   `json:"seed,omitempty"`
	ReasoningTokens int      `json:"reasoning_tokens,omitempty"`
	ReasoningEffort string   `json:"reasoning_effort,omitempty"`
}

// ModelConfig is one model of a log's model roles (a relay's writer and
// reader).
type ModelConfig struct {
	Model   string         `json:"model"`
	Config  GenerateConfig `json:"config"`
	Args    map[string]any `json:"args"`
	BaseURL string         `json:"base_url,omitempty"`
}

// EvalConfig is how the evaluation ran.
type EvalConfig struct {
	Epochs int `json:"epochs"`
}

// EvalPlan is the solver chain; killchain's is one agent loop.
type EvalPlan struct {
	Name   string         `json:"name"`
	Steps  []EvalPlanStep `json:"steps"`
	Config GenerateConfig `json:"config"`
}

// EvalPlanStep is one solver of the plan.
type EvalPlanStep struct {
	Solver       string         `json:"solver"`
	Params       map[string]any `json:"params"`
	ParamsPassed map[string]any `json:"params_passed"`
}

// EvalStats holds the log's times and token usage per model.
type EvalStats struct {
	StartedAt              string                `json:"started_at"`
	CompletedAt            string                `json:"completed_at"`
	ModelUsage             map[string]ModelUsage `json:"model_usage"`
	RoleUsage              map[string]ModelUsage `json:"role_usage"`
	ConnectionLimitHistory []any                 `json:"connection_limit_history"`
}

// EvalResults is the scores over the log's samples.
type EvalResults struct {
	TotalSamples     int         `json:"total_samples"`
	CompletedSamples int         `json:"completed_samples"`
	Scores           []EvalScore `json:"scores"`
}

// EvalScore is one scorer's metrics.
type EvalScore struct {
	Name            string                `json:"name"`
	Scorer          string                `json:"scorer"`
	Params          map[string]any        `json:"params"`
	Metrics         map[string]EvalMetric `json:"metrics"`
	ScoredSamples   int                   `json:"scored_samples"`
	UnscoredSamples int                   `json:"unscored_samples"`
	Metadata        map[string]any        `json:"metadata,omitempty"`
	Reducer         string                `json:"reducer,omitempty"`
}

// EvalMetric is one metric of a scorer.
type EvalMetric struct {
	Name   string         `json:"name"`
	Value  float64        `json:"value"`
	Params map[string]any `json:"params"`
}

// EvalSample is one sample: one killchain run.
type EvalSample struct {
	ID          string                `json:"id"`
	Epoch       int                   `json:"epoch"`
	Input       string                `json:"input"`
	Target      string                `json:"target"`
	Messages    []Message             `json:"messages"`
	Output      ModelOutput           `json:"output"`
	Scores      map[string]Score      `json:"scores"`
	Metadata    map[string]any        `json:"metadata"`
	Store       map[string]any        `json:"store"`
	Events      []any                 `json:"events"`
	ModelUsage  map[string]ModelUsage `json:"model_usage"`
	RoleUsage   map[string]ModelUsage `json:"role_usage"`
	StartedAt   string                `json:"started_at,omitempty"`
	CompletedAt string                `json:"completed_at,omitempty"`
	TotalTime   *float64              `json:"total_time,omitempty"`
	WorkingTime *float64              `json:"working_time,omitempty"`
	UUID        string                `json:"uuid,omitempty"`
	Error       *EvalError            `json:"error,omitempty"`
	// ErrorRetries are the failed tries of a run tried again, oldest first.
	ErrorRetries []EvalError       `json:"error_retries,omitempty"`
	Attachments  map[string]string `json:"attachments"`
}

// EvalSampleSummary is a sample's line in summaries.json.
type EvalSampleSummary struct {
	ID           string                `json:"id"`
	Epoch        int                   `json:"epoch"`
	Input        string                `json:"input"`
	Target       string                `json:"target"`
	Metadata     map[string]any        `json:"metadata"`
	Scores       map[string]Score      `json:"scores"`
	ModelUsage   map[string]ModelUsage `json:"model_usage"`
	RoleUsage    map[string]ModelUsage `json:"role_usage"`
	StartedAt    string                `json:"started_at,omitempty"`
	CompletedAt  string                `json:"completed_at,omitempty"`
	TotalTime    *float64              `json:"total_time,omitempty"`
	WorkingTime  *float64              `json:"working_time,omitempty"`
	UUID         string                `json:"uuid,omitempty"`
	Error        string                `json:"error,omitempty"`
	Retries      int                   `json:"retries,omitempty"`
	MessageCount int                   `json:"message_count"`
	Completed    bool                  `json:"completed"`
}

// EvalError is a sample's (or a log's) error.
type EvalError struct {
	Message       string `json:"message"`
	Traceback     string `json:"traceback"`
	TracebackANSI string `json:"traceback_ansi"`
}

// EvalSampleReductions is one scorer's per-sample values (reductions.json).
type EvalSampleReductions struct {
	Scorer  string            `json:"scorer"`
	Reducer string            `json:"reducer,omitempty"`
	Samples []EvalSampleScore `json:"samples"`
}

// EvalSampleScore is one sample's value of a scorer.
type EvalSampleScore struct {
	Value       any            `json:"value"`
	Answer      string         `json:"answer,omitempty"`
	Explanation string         `json:"explanation,omitempty"`
	Metadata    map[string]any `json:"metadata,omitempty"`
	History     []any          `json:"history"`
	SampleID    string         `json:"sample_id"`
}

// Score is one score of a sample. Value is a string, a number or a bool.
type Score struct {
	Value       any            `json:"value"`
	Answer      string         `json:"answer,omitempty"`
	Explanation string         `json:"explanation,omitempty"`
	Metadata    map[string]any `json:"metadata,omitempty"`
	History     []any          `json:"history"`
}

// ModelUsage is the tokens one model spent.
type ModelUsage struct {
	InputTokens     int  `json:"input_tokens"`
	OutputTokens    int  `json:"output_tokens"`
	TotalTokens     int  `json:"total_tokens"`
	CacheWrite      *int `json:"input_tokens_cache_write,omitempty"`
	CacheRead       *int `json:"input_tokens_cache_read,omitempty"`
	ReasoningTokens *int `json:"reasoning_tokens,omitempty"`
	// TotalCost is the run's cost from the study's prices, set where the
	// whole run's usage is one model's (a cost is kept per run, not per
	// agent); summed into the header's usage.
	TotalCost *float64 `json:"total_cost,omitempty"`
}

// add sums usage.
func (u ModelUsage) add(o ModelUsage) ModelUsage {
	u.InputTokens += o.InputTokens
	u.OutputTokens += o.OutputTokens
	u.TotalTokens += o.TotalTokens
	u.CacheWrite = addInt(u.CacheWrite, o.CacheWrite)
	u.CacheRead = addInt(u.CacheRead, o.CacheRead)
	u.ReasoningTokens = addInt(u.ReasoningTokens, o.ReasoningTokens)
	if o.TotalCost != nil {
		c := *o.TotalCost
		if u.TotalCost != nil {
			c += *u.TotalCost
		}
		u.TotalCost = &c
	}
	return u
}

// addInt sums two optional counts: nil when both are.
func addInt(a, b *int) *int {
	if b == nil {
		return a
	}
	n := *b
	if a != nil {
		n += *a
	}
	return &n
}

// ModelOutput is a sample's final model output.
type ModelOutput struct {
	Model      string         `json:"model"`
	Choices    []Choice       `json:"choices"`
	Completion string         `json:"completion"`
	Usage      *ModelUsage    `json:"usage,omitempty"`
	Error      string         `json:"error,omitempty"`
	Metadata   map[string]any `json:"metadata,omitempty"`
}

// Choice is one completion choice.
type Choice struct {
	Message    Message `json:"message"`
	StopReason string  `json:"stop_reason"`
}

// Message is a chat message of any role: system, user, assistant or tool.
// Content is a string or a list of Content parts.
type Message struct {
	Role       string         `json:"role"`
	Content    any            `json:"content"`
	Source     string         `json:"source,omitempty"`
	Model      string         `json:"model,omitempty"`
	ToolCalls  []ToolCall     `json:"tool_calls,omitempty"`
	ToolCallID string         `json:"tool_call_id,omitempty"`
	Function   string         `json:"function,omitempty"`
	Error      *ToolCallError `json:"error,omitempty"`
	Metadata   map[string]any `json:"metadata,omitempty"`
}

// Content is one part of a message: text ("text") or hidden reasoning
// ("reasoning"), never both.
type Content struct {
	Type      string `json:"type"`
	Text      string `json:"text,omitempty"`
	Reasoning string `json:"reasoning,omitempty"`
	Redacted  *bool  `json:"redacted,omitempty"`
}

// MarshalJSON writes exactly the fields of the part's type, required ones
// included when empty.
func (c Content) MarshalJSON() ([]byte, error) {
	if c.Type == contentReasoning {
		red := c.Redacted != nil && *c.Redacted
		return json.Marshal(struct {
			Type      string `json:"type"`
			Reasoning string `json:"reasoning"`
			Redacted  bool   `json:"redacted"`
		}{c.Type, c.Reasoning, red})
	}
	return json.Marshal(struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}{c.Type, c.Text})
}

// ToolCall is a call an assistant message asked for.
type ToolCall struct {
	ID         string         `json:"id"`
	Function   string         `json:"function"`
	Arguments  map[string]any `json:"arguments"`
	Type       string         `json:"type"`
	ParseError string         `json:"parse_error,omitempty"`
}

// ToolCallError is why a tool message is an error.
type ToolCallError struct {
	Type    string `json:"type"`
	Message string `json:"message"`
}

// The content part types.
const (
	contentText      = "text"
	contentReasoning = "reasoning"
)
