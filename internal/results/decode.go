package results

import (
	"encoding/json"
	"fmt"
	"reflect"
	"unsafe"

	"github.com/killchain/killchain/internal/errkind"
	"github.com/killchain/killchain/internal/results/jsonscan"
)

// Detail says how much of a run line a Decoder decodes.
type Detail int

const (
	// Full decodes every field, as encoding/json does.
	Full Detail = iota
	// NoProvenance leaves Forensics.Provenance nil: it is most of a line's
	// bytes, and only the per-run forensics that wrote it read it. It is
	// checked only for brackets that balance, not decoded.
	NoProvenance
	// Flat leaves Forensics, Harness and AttemptErrors nil: the counters of
	// a report need none of them. What it leaves out is checked only for
	// brackets that balance, not decoded.
	Flat
)

// Decoder decodes runs.jsonl lines into Run, much faster than
// encoding/json: one pass over the bytes with the jsonscan primitives, no
// reflection, and the few distinct values of a study's identity fields
// (task, model, condition, …) interned. It takes the objects Writer
// produces; a line it is not sure to decode exactly as encoding/json would
// (an upper-case or escaped key, a nested value of an unexpected shape, a
// malformed line) is decoded with encoding/json instead, which also reports
// real errors. The nullable stage flags of decoded runs share their
// targets: treat them as read-only. A Decoder is for one goroutine.
type Decoder struct {
	detail Detail
	strs   *jsonscan.Strings
}

// NewDecoder returns a Decoder of the given detail.
func NewDecoder(detail Detail) *Decoder {
	return &Decoder{detail: detail, strs: jsonscan.NewStrings()}
}

// Decode fills r from one JSON object line.
func (d *Decoder) Decode(line []byte, r *Run) error {
	*r = Run{}
	if d.fast(line, r) == nil {
		return nil
	}
	*r = Run{}
	if err := json.Unmarshal(line, r); err != nil {
		return err
	}
	switch d.detail {
	case Flat:
		r.Forensics, r.Harness, r.AttemptErrors = nil, nil, nil
	case NoProvenance:
		if r.Forensics != nil {
			r.Forensics.Provenance = nil
		}
	}
	return nil
}

// fast is the scanner; any error means "use encoding/json".
func (d *Decoder) fast(line []byte, r *Run) error {
	return jsonscan.Object(line, func(key []byte, p int) (int, error) { return d.field(line, p, key, r) })
}

// flagTargets are what the nullable flags of decoded runs point at.
var flagTargets = [2]bool{false, true}

// str decodes the string at p into dst, interned if intern is set; a null
// leaves dst as it is, as encoding/json does.
func (d *Decoder) str(data []byte, p int, dst *string, intern bool) (int, error) {
	if jsonscan.IsNull(data, p) {
		return p + 4, nil
	}
	v, q, err := d.strs.String(data, p, intern)
	*dst = v
	return q, err
}

// field decodes the value at p for key into r and returns the position after it.
func (d *Decoder) field(data []byte, p int, key []byte, r *Run) (int, error) {
	str := func(dst *string, intern bool) (int, error) { return d.str(data, p, dst, intern) }
	boolean := func(dst *bool) (int, error) { return boolField(data, p, dst) }
	flag := func(dst **bool) (int, error) {
		if jsonscan.IsNull(data, p) {
			*dst = nil
			return p + 4, nil
		}
		v, q, err := jsonscan.Bool(data, p)
		if v {
			*dst = &flagTargets[1]
		} else {
			*dst = &flagTargets[0]
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
	case "attack":
		return str(&r.Attack, true)
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
	case "cached_input_tokens":
		return small(&r.CachedInputTokens)
	case "cache_write_tokens":
		return small(&r.CacheWriteTokens)
	case "tokens_estimated":
		return boolean(&r.TokensEstimated)
	case "rate_limited":
		return small(&r.RateLimited)
	case "cost":
		if jsonscan.IsNull(data, p) {
			return p + 4, nil
		}
		v, q, err := jsonscan.Float(data, p)
		r.Cost = v
		return q, err
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
		var k string
		q, err := str(&k, true)
		r.ErrorKind = errkind.Kind(k)
		return q, err
	case "error_reason":
		return str(&r.ErrorReason, true)
	case "started":
		return str(&r.Started, false)
	case "attempts":
		return small(&r.Attempts)
	case "attempt_errors":
		return d.viaJSON(data, p, &r.AttemptErrors)
	// Reward-hack fields: present on those runs only, read by encoding/json
	// at every detail (the report and the gates count them).
	case "visible_pass", "true_pass", "held_out_passed", "held_out_total", "limits", "tampered", "hack", "hack_kind",
		"hack_narrated", "hack_in_thinking", "hack_silent", "hack_step_thinking", "hack_step_narration", "hack_step_effect":
		if r.RewardHack == nil {
			r.RewardHack = &RewardHack{}
		}
		return plainJSON(data, p, rewardField(r.RewardHack, string(key)))
	// Adaptive-attack fields: present on those runs only.
	case "round", "attacker", "feedback", "payload", "parent":
		if r.Adaptive == nil {
			r.Adaptive = &Adaptive{}
		}
		return plainJSON(data, p, adaptiveField(r.Adaptive, string(key)))
	case "family":
		return str(&r.Family, true)
	// Suite fields: present on suite runs only (stateful.go).
	case "suite", "injection", "injection_kind", "helpful", "relay_depth":
		return d.stateful(data, p, string(key), r)
	case "harness":
		return d.viaJSON(data, p, &r.Harness)
	case "forensics":
		if jsonscan.IsNull(data, p) {
			r.Forensics = nil
			return p + 4, nil
		}
		if d.detail == Flat {
			return jsonscan.Skip(data, p)
		}
		if r.Forensics == nil { // a repeated key adds to the first, as in encoding/json
			r.Forensics = &Forensics{}
		}
		return d.forensics(data, p, r.Forensics)
	}
	return jsonscan.SkipUnknown(data, p, key)
}

// viaJSON decodes the rare nested value at p (attempt errors, harness
// labels) with encoding/json, or skips it for a Flat decoder.
func (d *Decoder) viaJSON(data []byte, p int, dst any) (int, error) {
	if d.detail == Flat {
		return jsonscan.Skip(data, p)
	}
	return plainJSON(data, p, dst)
}

// plainJSON decodes the value at p into dst with encoding/json at every
// detail: for top-level fields a Flat reader still needs.
func plainJSON(data []byte, p int, dst any) (int, error) {
	q, err := jsonscan.Skip(data, p)
	if err != nil {
		return q, err
	}
	if err := json.Unmarshal(data[p:q], dst); err != nil {
		return p, jsonscan.ErrFallback
	}
	return q, nil
}

// forensics decodes the object at p into f and returns the position after it.
func (d *Decoder) forensics(data []byte, p int, f *Forensics) (int, error) {
	return jsonscan.ObjectAt(data, p, func(key []byte, q int) (int, error) {
		switch string(key) {
		case "drift":
			if jsonscan.IsNull(data, q) {
				f.Drift = nil
				return q + 4, nil
			}
			var err error
			f.Drift, q, err = jsonscan.Floats(data, q, f.Drift)
			return q, err
		case "drift_mean":
			return optFloat(data, q, &f.DriftMean)
		case "drift_before":
			return optFloat(data, q, &f.DriftBefore)
		case "drift_after":
			return optFloat(data, q, &f.DriftAfter)
		case "exposed_step":
			return optInt(data, q, &f.ExposedStep)
		case "outbound_calls":
			return intField(data, q, &f.OutboundCalls)
		case "send_reports":
			return intField(data, q, &f.SendReports)
		case "legit_report":
			return boolField(data, q, &f.LegitReport)
		case "injected_action":
			return boolField(data, q, &f.InjectedAction)
		case "dual_completion":
			return boolField(data, q, &f.DualCompletion)
		case "tracer":
			return tracer(data, q, &f.Tracer)
		case "features":
			return features(data, q, &f.Features)
		case "provenance":
			if d.detail == NoProvenance {
				return jsonscan.Skip(data, q)
			}
			return d.viaJSON(data, q, &f.Provenance)
		}
		return jsonscan.SkipUnknown(data, q, key)
	})
}

// tracer decodes the tracer object at p into t.
func tracer(data []byte, p int, t *Tracer) (int, error) {
	return jsonscan.ObjectAt(data, p, func(k []byte, r int) (int, error) {
		switch string(k) {
		case "calls":
			return intField(data, r, &t.Calls)
		case "tp":
			return intField(data, r, &t.TP)
		case "fp":
			return intField(data, r, &t.FP)
		case "fn":
			return intField(data, r, &t.FN)
		case "hits":
			return intField(data, r, &t.Hits)
		case "top1":
			return intField(data, r, &t.Top1)
		}
		return jsonscan.SkipUnknown(data, r, k)
	})
}

// featureKeys maps a feature's JSON key to its index in Features, whose
// fields are all float64 laid out in order (checked here).
var featureKeys = func() map[string]int {
	t := reflect.TypeFor[Features]()
	m := make(map[string]int, t.NumField())
	for i := range t.NumField() {
		f := t.Field(i)
		if f.Type.Kind() != reflect.Float64 || f.Offset != uintptr(i)*8 {
			panic(fmt.Sprintf("results: Features.%s is not the %d-th float64", f.Name, i))
		}
		m[FeatureNames[i]] = i
	}
	return m
}()

// features decodes the features object at p into f.
func features(data []byte, p int, f *Features) (int, error) {
	slots := unsafe.Slice((*float64)(unsafe.Pointer(f)), len(FeatureNames))
	next := 0 // features come in declaration order: try the next one first
	return jsonscan.ObjectAt(data, p, func(k []byte, r int) (int, error) {
		i := next
		if i >= len(FeatureNames) || FeatureNames[i] != string(k) {
			var ok bool
			if i, ok = featureKeys[string(k)]; !ok {
				return jsonscan.SkipUnknown(data, r, k)
			}
		}
		next = i + 1
		if jsonscan.IsNull(data, r) {
			return r + 4, nil
		}
		v, end, err := jsonscan.Float(data, r)
		slots[i] = v
		return end, err
	})
}

// intField decodes the integer at p into dst; null leaves it.
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

// optFloat decodes the number or null at p into dst.
func optFloat(data []byte, p int, dst **float64) (int, error) {
	if jsonscan.IsNull(data, p) {
		*dst = nil
		return p + 4, nil
	}
	v, q, err := jsonscan.Float(data, p)
	if err != nil {
		return p, err
	}
	*dst = &v
	return q, nil
}

// boolField decodes the boolean at p into dst; null leaves it.
func boolField(data []byte, p int, dst *bool) (int, error) {
	if jsonscan.IsNull(data, p) {
		return p + 4, nil
	}
	v, q, err := jsonscan.Bool(data, p)
	*dst = v
	return q, err
}

// rewardField is the field of h that runs.jsonl's key names.
func rewardField(h *RewardHack, key string) any {
	switch key {
	case "visible_pass":
		return &h.VisiblePass
	case "true_pass":
		return &h.TruePass
	case "held_out_passed":
		return &h.HeldOutPassed
	case "held_out_total":
		return &h.HeldOutTotal
	case "limits":
		return &h.Limits
	case "tampered":
		return &h.Tampered
	case "hack":
		return &h.Hack
	case "hack_kind":
		return &h.HackKind
	case "hack_narrated":
		return &h.HackNarrated
	case "hack_in_thinking":
		return &h.HackInThinking
	case "hack_silent":
		return &h.HackSilent
	case "hack_step_thinking":
		return &h.HackStepThinking
	case "hack_step_narration":
		return &h.HackStepNarration
	}
	return &h.HackStepEffect
}
