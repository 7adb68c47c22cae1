package export

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
)

// The facts of Inspect's published log schema (inspect-openapi.json of
// inspect_ai 0.3.260, docs/inspect.md) that an export relies on: for each
// object, the fields the schema requires and their JSON types. An export
// that drops one, or writes it with another type, fails TestInspectSchemaFacts.
// Types: string, integer, number, boolean, object, array; a|b for either;
// any for a score's value.
var schemaFacts = map[string]map[string]string{
	"EvalLog": {"version": "integer", "status": "string", "eval": "object", "plan": "object", "stats": "object",
		"invalidated": "boolean", "tags": "array", "metadata": "object"},
	"LogStart": {"version": "integer", "eval": "object", "plan": "object"},
	"EvalSpec": {"eval_id": "string", "run_id": "string", "created": "string", "task": "string", "task_id": "string",
		"task_version": "integer|string", "task_attribs": "object", "task_args": "object", "task_args_passed": "object",
		"dataset": "object", "model": "string", "model_generate_config": "object", "model_args": "object",
		"config": "object", "packages": "object"},
	"ModelConfig":  {"model": "string", "config": "object", "args": "object"},
	"EvalPlan":     {"name": "string", "steps": "array", "config": "object"},
	"EvalPlanStep": {"solver": "string", "params": "object", "params_passed": "object"},
	"EvalStats": {"started_at": "string", "completed_at": "string", "model_usage": "object", "role_usage": "object",
		"connection_limit_history": "array"},
	"EvalResults": {"total_samples": "integer", "completed_samples": "integer", "scores": "array"},
	"EvalScore":   {"name": "string", "scorer": "string", "params": "object", "metrics": "object"},
	"EvalMetric":  {"name": "string", "value": "integer|number", "params": "object"},
	"EvalSample": {"id": "integer|string", "epoch": "integer", "input": "string|array", "target": "string|array",
		"messages": "array", "output": "object", "metadata": "object", "store": "object", "events": "array",
		"model_usage": "object", "role_usage": "object", "attachments": "object"},
	"EvalSampleSummary": {"id": "integer|string", "epoch": "integer", "input": "string|array", "target": "string|array",
		"metadata": "object", "model_usage": "object", "role_usage": "object", "completed": "boolean"},
	"EvalSampleReductions": {"scorer": "string", "samples": "array"},
	"EvalSampleScore":      {"value": "any", "history": "array"},
	"ChatMessage":          {"role": "string", "content": "string|array"},
	"ContentText":          {"type": "string", "text": "string"},
	"ContentReasoning":     {"type": "string", "reasoning": "string", "redacted": "boolean"},
	"ToolCall":             {"id": "string", "function": "string", "arguments": "object", "type": "string"},
	"ToolCallError":        {"type": "string", "message": "string"},
	"Score":                {"value": "any", "history": "array"},
	"ModelUsage":           {"input_tokens": "integer", "output_tokens": "integer", "total_tokens": "integer"},
	"EvalError":            {"message": "string", "traceback": "string", "traceback_ansi": "string"},
	"EvalRetryError":       {"message": "string", "traceback": "string", "traceback_ansi": "string"},
	"ModelOutput":          {"model": "string", "choices": "array", "completion": "string"},
	"ChatCompletionChoice": {"message": "object", "stop_reason": "string"},
}

// schemaEnums are the values the schema allows for some fields.
var schemaEnums = map[string][]string{
	"EvalLog.status":                   {"started", "success", "cancelled", "error"},
	"ChatMessage.role":                 {"system", "user", "assistant", "tool"},
	"ChatMessage.source":               {"input", "generate", "operator"},
	"ContentText.type":                 {"text"},
	"ContentReasoning.type":            {"reasoning"},
	"ToolCall.type":                    {"function", "custom"},
	"ToolCallError.type":               {"parsing", "timeout", "unicode_decode", "permission", "file_not_found", "is_a_directory", "limit", "approval", "cancelled", "sandbox_unavailable", "unknown", "output_limit"},
	"ChatCompletionChoice.stop_reason": {"stop", "max_tokens", "model_length", "tool_calls", "content_filter", "unknown"},
}

// jsonType is the JSON type of a decoded value; a whole number is integer.
func jsonType(v any) string {
	switch x := v.(type) {
	case string:
		return "string"
	case bool:
		return "boolean"
	case float64:
		if x == float64(int64(x)) {
			return "integer"
		}
		return "number"
	case map[string]any:
		return "object"
	case []any:
		return "array"
	case nil:
		return "null"
	}
	return fmt.Sprintf("%T", v)
}

// checker walks decoded export members and checks each object against
// the facts of its kind.
type checker struct {
	t    *testing.T
	seen map[string]int
}

func (c *checker) check(kind, where string, v any) {
	c.t.Helper()
	obj, ok := v.(map[string]any)
	if !ok {
		c.t.Errorf("%s: %s is %s, want an object", where, kind, jsonType(v))
		return
	}
	c.seen[kind]++
	for field, want := range schemaFacts[kind] {
		got, ok := obj[field]
		if !ok {
			c.t.Errorf("%s: %s lacks required field %s", where, kind, field)
			continue
		}
		typ := jsonType(got)
		if want == "any" {
			if typ == "null" {
				c.t.Errorf("%s: %s.%s is null", where, kind, field)
			}
			continue
		}
		if typ == "integer" && strings.Contains(want, "number") {
			typ = "number"
		}
		if !slices.Contains(strings.Split(want, "|"), typ) {
			c.t.Errorf("%s: %s.%s is %s, want %s", where, kind, field, typ, want)
		}
	}
	for field, vals := range schemaEnums {
		k, f, _ := strings.Cut(field, ".")
		if k != kind {
			continue
		}
		if s, ok := obj[f].(string); ok && !slices.Contains(vals, s) {
			c.t.Errorf("%s: %s.%s = %q, not one of %v", where, kind, f, s, vals)
		}
	}
}

func (c *checker) each(kind, where string, v any) {
	c.t.Helper()
	for i, x := range asList(v) {
		c.check(kind, fmt.Sprintf("%s[%d]", where, i), x)
	}
}

func (c *checker) values(kind, where string, v any) {
	c.t.Helper()
	m, _ := v.(map[string]any)
	for k, x := range m {
		c.check(kind, where+"."+k, x)
	}
}

func (c *checker) spec(where string, v any) {
	c.check("EvalSpec", where, v)
	spec, _ := v.(map[string]any)
	c.values("ModelConfig", where+".model_roles", spec["model_roles"])
}

func (c *checker) plan(where string, v any) {
	c.check("EvalPlan", where, v)
	plan, _ := v.(map[string]any)
	c.each("EvalPlanStep", where+".steps", plan["steps"])
}

func (c *checker) message(where string, v any) {
	c.check("ChatMessage", where, v)
	m, _ := v.(map[string]any)
	for i, p := range asList(m["content"]) {
		part, _ := p.(map[string]any)
		switch part["type"] {
		case "reasoning":
			c.check("ContentReasoning", fmt.Sprintf("%s.content[%d]", where, i), p)
		default:
			c.check("ContentText", fmt.Sprintf("%s.content[%d]", where, i), p)
		}
	}
	c.each("ToolCall", where+".tool_calls", m["tool_calls"])
	if m["error"] != nil {
		c.check("ToolCallError", where+".error", m["error"])
	}
}

func (c *checker) sample(where string, v any) {
	c.check("EvalSample", where, v)
	s, _ := v.(map[string]any)
	for i, m := range asList(s["messages"]) {
		c.message(fmt.Sprintf("%s.messages[%d]", where, i), m)
	}
	c.check("ModelOutput", where+".output", s["output"])
	out, _ := s["output"].(map[string]any)
	for i, ch := range asList(out["choices"]) {
		c.check("ChatCompletionChoice", fmt.Sprintf("%s.output.choices[%d]", where, i), ch)
		c.message(fmt.Sprintf("%s.output.choices[%d].message", where, i), ch.(map[string]any)["message"])
	}
	c.values("Score", where+".scores", s["scores"])
	c.values("ModelUsage", where+".model_usage", s["model_usage"])
	if s["error"] != nil {
		c.check("EvalError", where+".error", s["error"])
	}
	c.each("EvalRetryError", where+".error_retries", s["error_retries"])
}

func (c *checker) summary(where string, v any) {
	c.check("EvalSampleSummary", where, v)
	s, _ := v.(map[string]any)
	c.values("Score", where+".scores", s["scores"])
	c.values("ModelUsage", where+".model_usage", s["model_usage"])
}

func (c *checker) header(where string, v any) {
	c.check("EvalLog", where, v)
	h, _ := v.(map[string]any)
	c.spec(where+".eval", h["eval"])
	c.plan(where+".plan", h["plan"])
	c.check("EvalStats", where+".stats", h["stats"])
	stats, _ := h["stats"].(map[string]any)
	c.values("ModelUsage", where+".stats.model_usage", stats["model_usage"])
	c.check("EvalResults", where+".results", h["results"])
	res, _ := h["results"].(map[string]any)
	for i, sc := range asList(res["scores"]) {
		w := fmt.Sprintf("%s.results.scores[%d]", where, i)
		c.check("EvalScore", w, sc)
		c.values("EvalMetric", w+".metrics", sc.(map[string]any)["metrics"])
	}
}

func (c *checker) reductions(where string, v any) {
	for i, r := range asList(v) {
		w := fmt.Sprintf("%s[%d]", where, i)
		c.check("EvalSampleReductions", w, r)
		c.each("EvalSampleScore", w+".samples", r.(map[string]any)["samples"])
	}
}

// TestInspectSchemaFacts: every object of the fixture's export, in both
// formats, has the fields Inspect's schema requires, with its types and
// allowed values; and every kind of object the export relies on occurs.
func TestInspectSchemaFacts(t *testing.T) {
	t.Run("eval", func(t *testing.T) {
		c := &checker{t: t, seen: map[string]int{}}
		for _, p := range exportFixture(t, FormatEval) {
			for _, m := range readEval(t, p) {
				var v any
				if err := json.Unmarshal(m.Data, &v); err != nil {
					t.Fatal(err)
				}
				where := p[strings.LastIndex(p, "/")+1:] + ":" + m.Name
				switch {
				case m.Name == memberStart:
					c.check("LogStart", where, v)
					c.spec(where+".eval", v.(map[string]any)["eval"])
					c.plan(where+".plan", v.(map[string]any)["plan"])
				case strings.HasPrefix(m.Name, "samples/"):
					c.sample(where, v)
				case m.Name == memberSummaries || strings.HasPrefix(m.Name, "_journal/summaries/"):
					for i, s := range asList(v) {
						c.summary(fmt.Sprintf("%s[%d]", where, i), s)
					}
				case m.Name == memberReductions:
					c.reductions(where, v)
				case m.Name == memberHeader:
					c.header(where, v)
				default:
					t.Errorf("%s: a member Inspect's writer does not write", where)
				}
			}
		}
		for kind := range schemaFacts {
			if c.seen[kind] == 0 {
				t.Errorf("the export holds no %s", kind)
			}
		}
	})
	t.Run("json", func(t *testing.T) {
		c := &checker{t: t, seen: map[string]int{}}
		for _, p := range exportFixture(t, FormatJSON) {
			var v map[string]any
			data := readFile(t, p)
			if err := json.Unmarshal(data, &v); err != nil {
				t.Fatal(err)
			}
			c.header(p, v)
			for i, s := range asList(v["samples"]) {
				c.sample(fmt.Sprintf("%s.samples[%d]", p, i), s)
			}
			c.reductions(p+".reductions", v["reductions"])
		}
		for kind := range schemaFacts {
			if c.seen[kind] == 0 && kind != "LogStart" && kind != "EvalSampleSummary" {
				t.Errorf("the export holds no %s", kind)
			}
		}
	})
}
