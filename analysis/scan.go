package analysis

import (
	"bytes"
	"errors"
	"strconv"

	"github.com/killchain/killchain/results"
)

// lineDecoder decodes, from a runs.jsonl line, only what the Accumulator
// reads, without reflection and without allocating per number. The
// forensic features are not decoded: their bytes are returned, to be
// decoded only for the runs the classifier samples. A line it does not
// take (a string with escapes in a field it keeps, harness labels, a shape
// it does not expect) returns errFallback, and the caller uses
// encoding/json, which also reports real errors.
type lineDecoder struct {
	intern  map[string]string
	t, f    bool
	lag     int
	before  float64
	after   float64
	drift   []float64
	featIdx map[string]int
}

var errFallback = errors.New("fallback")

func newLineDecoder() *lineDecoder {
	d := &lineDecoder{intern: map[string]string{}, t: true, featIdx: map[string]int{}}
	for i, n := range results.FeatureNames {
		d.featIdx[n] = i
	}
	return d
}

// str returns an interned string for the few distinct identity values.
func (d *lineDecoder) str(b []byte) string {
	if s, ok := d.intern[string(b)]; ok {
		return s
	}
	s := string(b)
	if len(d.intern) < 4096 {
		d.intern[s] = s
	}
	return s
}

// decode fills r and f (r.Forensics points at f when the line has
// forensics) and returns the raw features object.
func (d *lineDecoder) decode(data []byte, r *results.Run, f *results.Forensics) ([]byte, error) {
	*r = results.Run{}
	*f = results.Forensics{Drift: d.drift[:0]}
	var feats []byte
	err := walkObject(data, func(key, val []byte) error {
		switch string(key) {
		case "run_id":
			s, err := plainString(val)
			if err != nil {
				return err
			}
			r.RunID = string(s)
		case "task", "mode", "model_a", "model_b", "stage", "error":
			s, err := plainString(val)
			if err != nil {
				return err
			}
			v := d.str(s)
			switch string(key) {
			case "task":
				r.Task = v
			case "mode":
				r.Mode = v
			case "model_a":
				r.ModelA = v
			case "model_b":
				r.ModelB = v
			case "stage":
				r.Stage = v
			case "error":
				r.Error = v
			}
		case "attacked", "task_success", "attack_goal":
			b, err := boolean(val)
			if err != nil {
				return err
			}
			switch string(key) {
			case "attacked":
				r.Attacked = b
			case "task_success":
				r.TaskSuccess = b
			case "attack_goal":
				r.AttackGoal = b
			}
		case "exposed", "persisted", "relayed", "executed":
			p, err := d.flag(val)
			if err != nil {
				return err
			}
			switch string(key) {
			case "exposed":
				r.Exposed = p
			case "persisted":
				r.Persisted = p
			case "relayed":
				r.Relayed = p
			case "executed":
				r.Executed = p
			}
		case "lag":
			if isNull(val) {
				return nil
			}
			n, err := integer(val)
			if err != nil {
				return err
			}
			d.lag = n
			r.Lag = &d.lag
		case "outbound_calls":
			n, err := integer(val)
			if err != nil {
				return err
			}
			r.Outbound = n
		case "harness":
			if !isNull(val) {
				return errFallback
			}
		case "forensics":
			if isNull(val) {
				return nil
			}
			r.Forensics = f
			var err error
			feats, err = d.forensics(val, f)
			return err
		}
		return nil
	})
	d.drift = f.Drift
	return feats, err
}

func (d *lineDecoder) forensics(data []byte, f *results.Forensics) ([]byte, error) {
	var feats []byte
	err := walkObject(data, func(key, val []byte) error {
		var err error
		switch string(key) {
		case "drift":
			f.Drift, err = floats(val, f.Drift)
		case "drift_before", "drift_after":
			if isNull(val) {
				return nil
			}
			x, err := number(val)
			if err != nil {
				return err
			}
			if string(key) == "drift_before" {
				d.before = x
				f.DriftBefore = &d.before
			} else {
				d.after = x
				f.DriftAfter = &d.after
			}
		case "legit_report":
			f.LegitReport, err = boolean(val)
		case "injected_action":
			f.InjectedAction, err = boolean(val)
		case "dual_completion":
			f.DualCompletion, err = boolean(val)
		case "tracer":
			err = walkObject(val, func(k, v []byte) error {
				n, err := integer(v)
				if err != nil {
					return err
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
				return nil
			})
		case "features":
			feats = val
		}
		return err
	})
	return feats, err
}

// features decodes a features object into a vector in FeatureNames order.
func (d *lineDecoder) features(data []byte) ([]float64, error) {
	vec := make([]float64, len(results.FeatureNames))
	err := walkObject(data, func(k, v []byte) error {
		i, ok := d.featIdx[string(k)]
		if !ok {
			return nil
		}
		x, err := number(v)
		vec[i] = x
		return err
	})
	return vec, err
}

func (d *lineDecoder) flag(val []byte) (*bool, error) {
	if isNull(val) {
		return nil, nil
	}
	b, err := boolean(val)
	if err != nil {
		return nil, err
	}
	if b {
		return &d.t, nil
	}
	return &d.f, nil
}

// walkObject calls fn with each key (without quotes; keys with escapes are
// refused) and raw value of the JSON object in data.
func walkObject(data []byte, fn func(key, val []byte) error) error {
	p := skipWS(data, 0)
	if p >= len(data) || data[p] != '{' {
		return errFallback
	}
	p = skipWS(data, p+1)
	if p < len(data) && data[p] == '}' {
		return nil
	}
	for {
		if p >= len(data) || data[p] != '"' {
			return errFallback
		}
		end := p + 1
		for end < len(data) && data[end] != '"' {
			if data[end] == '\\' {
				return errFallback
			}
			end++
		}
		if end >= len(data) {
			return errFallback
		}
		key := data[p+1 : end]
		p = skipWS(data, end+1)
		if p >= len(data) || data[p] != ':' {
			return errFallback
		}
		p = skipWS(data, p+1)
		vend, err := skipValue(data, p)
		if err != nil {
			return err
		}
		if err := fn(key, data[p:vend]); err != nil {
			return err
		}
		p = skipWS(data, vend)
		if p >= len(data) {
			return errFallback
		}
		if data[p] == '}' {
			return nil
		}
		if data[p] != ',' {
			return errFallback
		}
		p = skipWS(data, p+1)
	}
}

func skipWS(data []byte, p int) int {
	for p < len(data) && (data[p] == ' ' || data[p] == '\t' || data[p] == '\n' || data[p] == '\r') {
		p++
	}
	return p
}

// skipValue returns the end of the JSON value starting at p.
func skipValue(data []byte, p int) (int, error) {
	if p >= len(data) {
		return 0, errFallback
	}
	switch data[p] {
	case '"':
		i := p + 1
		for {
			j := bytes.IndexByte(data[i:], '"')
			if j < 0 {
				return 0, errFallback
			}
			i += j
			// The quote closes the string unless an odd run of
			// backslashes escapes it.
			bs := 0
			for k := i - 1; k > p && data[k] == '\\'; k-- {
				bs++
			}
			if bs%2 == 0 {
				return i + 1, nil
			}
			i++
		}
	case '{', '[':
		depth := 0
		for i := p; i < len(data); i++ {
			switch data[i] {
			case '"':
				e, err := skipValue(data, i)
				if err != nil {
					return 0, err
				}
				i = e - 1
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return i + 1, nil
				}
			}
		}
		return 0, errFallback
	}
	i := p
	for i < len(data) && data[i] != ',' && data[i] != '}' && data[i] != ']' && data[i] != ' ' && data[i] != '\n' && data[i] != '\r' && data[i] != '\t' {
		i++
	}
	if i == p {
		return 0, errFallback
	}
	return i, nil
}

func isNull(v []byte) bool { return string(v) == "null" }

func plainString(v []byte) ([]byte, error) {
	if len(v) < 2 || v[0] != '"' || v[len(v)-1] != '"' || bytes.IndexByte(v, '\\') >= 0 {
		return nil, errFallback
	}
	return v[1 : len(v)-1], nil
}

func boolean(v []byte) (bool, error) {
	switch string(v) {
	case "true":
		return true, nil
	case "false":
		return false, nil
	}
	return false, errFallback
}

func integer(v []byte) (int, error) {
	if len(v) == 0 || len(v) > 18 {
		return 0, errFallback
	}
	neg := v[0] == '-'
	if neg {
		v = v[1:]
	}
	n := 0
	for _, c := range v {
		if c < '0' || c > '9' {
			return 0, errFallback
		}
		n = n*10 + int(c-'0')
	}
	if neg {
		n = -n
	}
	return n, nil
}

var pow10 = [...]float64{1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22}

// number parses a JSON number. Plain decimals of up to 15 digits take the
// exact fast path (an integer mantissa below 2^53 divided by a power of ten
// is correctly rounded); anything else goes through strconv.
func number(v []byte) (float64, error) {
	s := v
	neg := len(s) > 0 && s[0] == '-'
	if neg {
		s = s[1:]
	}
	var mant uint64
	digits, frac := 0, -1
	ok := len(s) > 0
	for i, c := range s {
		switch {
		case c >= '0' && c <= '9':
			mant = mant*10 + uint64(c-'0')
			digits++
			if frac >= 0 {
				frac++
			}
		case c == '.' && frac < 0 && i > 0:
			frac = 0
		default:
			ok = false
		}
		if !ok {
			break
		}
	}
	if ok && digits <= 15 && frac != 0 {
		x := float64(mant)
		if frac > 0 {
			x /= pow10[frac]
		}
		if neg {
			x = -x
		}
		return x, nil
	}
	if len(s) == 0 || s[0] < '0' || s[0] > '9' || s[len(s)-1] == '.' || bytes.Contains(s, []byte(".e")) || bytes.Contains(s, []byte(".E")) {
		return 0, errFallback // not a JSON number: let encoding/json say so
	}
	x, err := strconv.ParseFloat(string(v), 64)
	if err != nil {
		return 0, errFallback
	}
	return x, nil
}

// floats parses a JSON array of numbers into dst[:0].
func floats(v []byte, dst []float64) ([]float64, error) {
	dst = dst[:0]
	p := skipWS(v, 0)
	if p >= len(v) || v[p] != '[' {
		if isNull(v) {
			return dst, nil
		}
		return dst, errFallback
	}
	p = skipWS(v, p+1)
	if p < len(v) && v[p] == ']' {
		return dst, nil
	}
	for {
		e, err := skipValue(v, p)
		if err != nil {
			return dst, err
		}
		x, err := number(v[p:e])
		if err != nil {
			return dst, err
		}
		dst = append(dst, x)
		p = skipWS(v, e)
		if p >= len(v) {
			return dst, errFallback
		}
		if v[p] == ']' {
			return dst, nil
		}
		if v[p] != ',' {
			return dst, errFallback
		}
		p = skipWS(v, p+1)
	}
}
