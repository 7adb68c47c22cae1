package report

import (
	"encoding/json"

	"github.com/killchain/killchain/results"
	"github.com/killchain/killchain/results/jsonscan"
)

// runScanner decodes the lines of runs.jsonl into results.Run much faster
// than encoding/json: one pass over the bytes with the jsonscan primitives,
// no reflection, and strings interned so that the few distinct values of a
// study's identity fields (task, model, condition, …) are allocated once.
// It accepts the flat objects results.Writer produces; anything it does not
// understand (a nested value under a known key, a malformed line) makes
// decode fail, and the caller falls back to encoding/json, which then also
// reports the error. A null leaves a plain field as it is and a pointer,
// slice or object nil, as encoding/json does.
type runScanner struct {
	// nested decodes the "forensics" and "harness" objects and the
	// "attempt_errors" array; without it they are skipped and left nil,
	// which the counters do not need.
	nested bool
	strs   *jsonscan.Strings
	t      *trueFalse
}

// trueFalse holds one true and one false to point nullable flags at: the
// Aggregator only reads them.
type trueFalse struct{ t, f bool }

func newRunScanner(nested bool) *runScanner {
	return &runScanner{nested: nested, strs: jsonscan.NewStrings(), t: &trueFalse{t: true}}
}

// decode fills r from one JSON object line.
func (s *runScanner) decode(data []byte, r *results.Run) error {
	*r = results.Run{}
	return jsonscan.Object(data, func(key []byte, p int) (int, error) { return s.field(data, p, key, r) })
}

// str decodes the string at p into dst, interned if intern is set.
func (s *runScanner) str(data []byte, p int, dst *string, intern bool) (int, error) {
	if jsonscan.IsNull(data, p) {
		return p + 4, nil
	}
	v, q, err := s.strs.String(data, p, intern)
	*dst = v
	return q, err
}

// field decodes the value at p for key into r and returns the position after it.
func (s *runScanner) field(data []byte, p int, key []byte, r *results.Run) (int, error) {
	str := func(dst *string, intern bool) (int, error) { return s.str(data, p, dst, intern) }
	boolean := func(dst *bool) (int, error) { return boolField(data, p, dst) }
	flag := func(dst **bool) (int, error) {
		if jsonscan.IsNull(data, p) {
			*dst = nil
			return p + 4, nil
		}
		v, q, err := jsonscan.Bool(data, p)
		if v {
			*dst = &s.t.t
		} else {
			*dst = &s.t.f
		}
		return q, err
	}
	small := func(dst *int) (int, error) { return intField(data, p, dst) }
	switch string(key) {
	case "study":
		return str(&r.Study, true)
	case "batch":
		return str(&r.Batch, true)
	case "grid":
		return str(&r.Grid, true)
	case "run_id":
		return str(&r.RunID, false)
	case "cell":
		return str(&r.Cell, true)
	case "repeat":
		return small(&r.Repeat)
	case "task":
		return str(&r.Task, true)
	case "variant":
		return str(&r.Variant, true)
	case "surface":
		return str(&r.Surface, true)
	case "mode":
		return str(&r.Mode, true)
	case "condition":
		return str(&r.Condition, true)
	case "defense":
		return str(&r.Defense, true)
	case "model_a":
		return str(&r.ModelA, true)
	case "model_b":
		return str(&r.ModelB, true)
	case "attacked":
		return boolean(&r.Attacked)
	case "canary":
		return str(&r.Canary, false)
	case "stage":
		return str(&r.Stage, true)
	case "exposed":
		return flag(&r.Exposed)
	case "persisted":
		return flag(&r.Persisted)
	case "relayed":
		return flag(&r.Relayed)
	case "executed":
		return flag(&r.Executed)
	case "attack_goal":
		return boolean(&r.AttackGoal)
	case "task_success":
		return boolean(&r.TaskSuccess)
	case "noticed":
		return boolean(&r.Noticed)
	case "noticed_thinking":
		return boolean(&r.NoticedThinking)
	case "noticed_narration":
		return boolean(&r.NoticedNarration)
	case "no_tool_call":
		return boolean(&r.NoToolCall)
	case "contaminated":
		return boolean(&r.Contaminated)
	case "blocked_writes":
		return small(&r.BlockedWrites)
	case "blocked_calls":
		return small(&r.BlockedCalls)
	case "refused_calls":
		return small(&r.RefusedCalls)
	case "failed_calls":
		return small(&r.FailedCalls)
	case "canary_attempts":
		return small(&r.CanaryAttempts)
	case "classifier_errors":
		return small(&r.ClassifierErrors)
	case "lag":
		return optInt(data, p, &r.Lag)
	case "events":
		return optInt(data, p, &r.Events)
	case "steps_a":
		return small(&r.StepsA)
	case "steps_b":
		return small(&r.StepsB)
	case "tool_calls_a":
		return small(&r.ToolCallsA)
	case "tool_calls_b":
		return small(&r.ToolCallsB)
	case "outbound_calls":
		return small(&r.Outbound)
	case "input_tokens":
		return small(&r.InputTokens)
	case "output_tokens":
		return small(&r.OutputTokens)
	case "reasoning_tokens":
		return small(&r.ReasoningTokens)
	case "duration_ms":
		if jsonscan.IsNull(data, p) {
			return p + 4, nil
		}
		v, q, err := jsonscan.Int(data, p)
		r.DurationMS = v
		return q, err
	case "error":
		return str(&r.Error, false)
	case "error_kind":
		return str(&r.ErrorKind, true)
	case "started":
		return str(&r.Started, false)
	case "attempts":
		return small(&r.Attempts)
	case "attempt_errors":
		q, err := jsonscan.Skip(data, p)
		if err != nil || !s.nested || jsonscan.IsNull(data, p) {
			return q, err
		}
		if err := json.Unmarshal(data[p:q], &r.AttemptErrors); err != nil {
			return p, jsonscan.ErrFallback
		}
		return q, nil
	case "visible_pass":
		return flag(&r.VisiblePass)
	case "true_pass":
		return flag(&r.TruePass)
	case "hack":
		return flag(&r.Hack)
	case "hack_kind":
		return str(&r.HackKind, true)
	case "hack_narrated":
		return flag(&r.HackNarrated)
	case "hack_in_thinking":
		return flag(&r.HackInThinking)
	case "hack_silent":
		return flag(&r.HackSilent)
	case "hack_step_thinking":
		return optInt(data, p, &r.HackStepThinking)
	case "hack_step_narration":
		return optInt(data, p, &r.HackStepNarration)
	case "hack_step_effect":
		return optInt(data, p, &r.HackStepEffect)
	case "tampered":
		q, err := jsonscan.Skip(data, p)
		if err != nil || jsonscan.IsNull(data, p) {
			return q, err
		}
		if err := json.Unmarshal(data[p:q], &r.Tampered); err != nil {
			return p, jsonscan.ErrFallback
		}
		return q, nil
	case "forensics":
		if jsonscan.IsNull(data, p) {
			r.Forensics = nil
			return p + 4, nil
		}
		if !s.nested {
			return jsonscan.Skip(data, p)
		}
		f, q, err := s.decodeForensics(data, p)
		r.Forensics = f
		return q, err
	case "harness":
		q, err := jsonscan.Skip(data, p)
		if err != nil || !s.nested || jsonscan.IsNull(data, p) {
			return q, err
		}
		if err := json.Unmarshal(data[p:q], &r.Harness); err != nil {
			return p, jsonscan.ErrFallback
		}
		return q, nil
	}
	return jsonscan.SkipUnknown(data, p, key)
}

// intField decodes the integer at p into dst.
func intField(data []byte, p int, dst *int) (int, error) {
	if jsonscan.IsNull(data, p) {
		return p + 4, nil
	}
	v, q, err := jsonscan.Int(data, p)
	*dst = int(v)
	return q, err
}

// optInt decodes the integer or null at p into dst.
func optInt(data []byte, p int, dst **int) (int, error) {
	if jsonscan.IsNull(data, p) {
		*dst = nil
		return p + 4, nil
	}
	v, q, err := jsonscan.Int(data, p)
	i := int(v)
	*dst = &i
	return q, err
}

// boolField decodes the boolean at p into dst.
func boolField(data []byte, p int, dst *bool) (int, error) {
	if jsonscan.IsNull(data, p) {
		return p + 4, nil
	}
	v, q, err := jsonscan.Bool(data, p)
	*dst = v
	return q, err
}
