package analysis

import (
	"github.com/killchain/killchain/results"
	"github.com/killchain/killchain/results/jsonscan"
)

// lineDecoder decodes, from a runs.jsonl line, only what the Accumulator
// reads, with the jsonscan primitives: no reflection and no allocation per
// number. The forensic features are not decoded: their bytes are returned,
// to be decoded only for the runs the classifier samples. A line it does
// not take (harness labels, a shape it does not expect) returns an error,
// and the caller uses encoding/json, which also reports real errors.
type lineDecoder struct {
	strs    *jsonscan.Strings
	t, f    bool
	lag     int
	before  float64
	after   float64
	drift   []float64
	featIdx map[string]int
}

func newLineDecoder() *lineDecoder {
	d := &lineDecoder{strs: jsonscan.NewStrings(), t: true, featIdx: map[string]int{}}
	for i, n := range results.FeatureNames {
		d.featIdx[n] = i
	}
	return d
}

// decode fills r and f (r.Forensics points at f when the line has
// forensics) and returns the raw features object.
func (d *lineDecoder) decode(data []byte, r *results.Run, f *results.Forensics) ([]byte, error) {
	*r = results.Run{}
	*f = results.Forensics{Drift: d.drift[:0]}
	var feats []byte
	err := jsonscan.Object(data, func(key []byte, p int) (int, error) {
		switch string(key) {
		case "run_id":
			return d.str(data, p, &r.RunID, false)
		case "task":
			return d.str(data, p, &r.Task, true)
		case "mode":
			return d.str(data, p, &r.Mode, true)
		case "model_a":
			return d.str(data, p, &r.ModelA, true)
		case "model_b":
			return d.str(data, p, &r.ModelB, true)
		case "stage":
			return d.str(data, p, &r.Stage, true)
		case "error":
			return d.str(data, p, &r.Error, true)
		case "attacked":
			return boolean(data, p, &r.Attacked)
		case "task_success":
			return boolean(data, p, &r.TaskSuccess)
		case "attack_goal":
			return boolean(data, p, &r.AttackGoal)
		case "exposed":
			return d.flag(data, p, &r.Exposed)
		case "persisted":
			return d.flag(data, p, &r.Persisted)
		case "relayed":
			return d.flag(data, p, &r.Relayed)
		case "executed":
			return d.flag(data, p, &r.Executed)
		case "lag":
			if jsonscan.IsNull(data, p) {
				return p + 4, nil
			}
			q, err := integer(data, p, &d.lag)
			r.Lag = &d.lag
			return q, err
		case "outbound_calls":
			return integer(data, p, &r.Outbound)
		case "harness":
			if !jsonscan.IsNull(data, p) {
				return p, jsonscan.ErrFallback
			}
			return p + 4, nil
		case "forensics":
			if jsonscan.IsNull(data, p) {
				return p + 4, nil
			}
			r.Forensics = f
			var q int
			var err error
			feats, q, err = d.forensics(data, p, f)
			return q, err
		}
		return jsonscan.Skip(data, p)
	})
	d.drift = f.Drift
	return feats, err
}

// forensics decodes the forensics object at p into f and returns its raw
// features object and the position after it.
func (d *lineDecoder) forensics(data []byte, p int, f *results.Forensics) ([]byte, int, error) {
	var feats []byte
	q, err := jsonscan.ObjectAt(data, p, func(key []byte, p int) (int, error) {
		switch string(key) {
		case "drift":
			if jsonscan.IsNull(data, p) {
				f.Drift = f.Drift[:0]
				return p + 4, nil
			}
			var err error
			f.Drift, p, err = jsonscan.Floats(data, p, f.Drift)
			return p, err
		case "drift_before", "drift_after":
			if jsonscan.IsNull(data, p) {
				return p + 4, nil
			}
			x, q, err := jsonscan.Float(data, p)
			if err != nil {
				return p, err
			}
			if string(key) == "drift_before" {
				d.before = x
				f.DriftBefore = &d.before
			} else {
				d.after = x
				f.DriftAfter = &d.after
			}
			return q, nil
		case "legit_report":
			return boolean(data, p, &f.LegitReport)
		case "injected_action":
			return boolean(data, p, &f.InjectedAction)
		case "dual_completion":
			return boolean(data, p, &f.DualCompletion)
		case "tracer":
			return jsonscan.ObjectAt(data, p, func(k []byte, p int) (int, error) {
				var n int
				q, err := integer(data, p, &n)
				if err != nil {
					return p, err
				}
				switch string(k) {
				case "calls":
					f.Tracer.Calls = n
				case "tp":
					f.Tracer.TP = n
				case "fp":
					f.Tracer.FP = n
				case "fn":
					f.Tracer.FN = n
				case "hits":
					f.Tracer.Hits = n
				case "top1":
					f.Tracer.Top1 = n
				}
				return q, nil
			})
		case "features":
			q, err := jsonscan.Skip(data, p)
			feats = data[p:q]
			return q, err
		}
		return jsonscan.Skip(data, p)
	})
	return feats, q, err
}

// features decodes a features object into a vector in FeatureNames order.
func (d *lineDecoder) features(data []byte) ([]float64, error) {
	vec := make([]float64, len(results.FeatureNames))
	err := jsonscan.Object(data, func(k []byte, p int) (int, error) {
		i, ok := d.featIdx[string(k)]
		if !ok {
			return jsonscan.Skip(data, p)
		}
		x, q, err := jsonscan.Float(data, p)
		vec[i] = x
		return q, err
	})
	return vec, err
}

// str decodes the string at p into dst, interned if intern is set; a null
// is left to encoding/json.
func (d *lineDecoder) str(data []byte, p int, dst *string, intern bool) (int, error) {
	v, q, err := d.strs.String(data, p, intern)
	*dst = v
	return q, err
}

func (d *lineDecoder) flag(data []byte, p int, dst **bool) (int, error) {
	if jsonscan.IsNull(data, p) {
		*dst = nil
		return p + 4, nil
	}
	b, q, err := jsonscan.Bool(data, p)
	if err != nil {
		return p, err
	}
	if b {
		*dst = &d.t
	} else {
		*dst = &d.f
	}
	return q, nil
}

func boolean(data []byte, p int, dst *bool) (int, error) {
	v, q, err := jsonscan.Bool(data, p)
	*dst = v
	return q, err
}

func integer(data []byte, p int, dst *int) (int, error) {
	v, q, err := jsonscan.Int(data, p)
	*dst = int(v)
	return q, err
}
