package report

import (
	"bytes"
	"fmt"
	"reflect"
	"strconv"
	"unsafe"

	"github.com/killchain/killchain/results"
)

// The forensics object of a run line is most of its bytes; encoding/json
// takes several microseconds for it, which at a million runs is most of a
// report. decodeForensics reads it by hand. Provenance (per-call
// attributions) is skipped: no report section reads it, and it is the
// largest part.

// featureIndex maps a feature's JSON key to its index in results.Features,
// whose fields are all float64 laid out in order (checked below).
var featureIndex = func() map[string]int {
	t := reflect.TypeFor[results.Features]()
	m := make(map[string]int, t.NumField())
	for i := range t.NumField() {
		f := t.Field(i)
		if f.Type.Kind() != reflect.Float64 || f.Offset != uintptr(i)*8 {
			panic(fmt.Sprintf("report: results.Features.%s is not the %d-th float64", f.Name, i))
		}
		m[results.FeatureNames[i]] = i
	}
	return m
}()

// featureSlots views the features as an array of float64.
func featureSlots(f *results.Features) []float64 {
	n := reflect.TypeFor[results.Features]().NumField()
	return unsafe.Slice((*float64)(unsafe.Pointer(f)), n)
}

// decodeForensics decodes the object at p into a new Forensics and returns
// the position after it.
func (s *runScanner) decodeForensics(data []byte, p int) (*results.Forensics, int, error) {
	obj := data
	f := &results.Forensics{}
	end, err := scanObjectAt(obj, p, func(key []byte, q int) (int, error) {
		switch string(key) {
		case "drift":
			return floatArray(obj, q, &f.Drift)
		case "drift_mean":
			return optFloat(obj, q, &f.DriftMean)
		case "drift_before":
			return optFloat(obj, q, &f.DriftBefore)
		case "drift_after":
			return optFloat(obj, q, &f.DriftAfter)
		case "exposed_step":
			if bytes.HasPrefix(obj[q:], []byte("null")) {
				return q + 4, nil
			}
			v, n, ok := parseInt(obj, q)
			if !ok {
				return q, errScan
			}
			i := int(v)
			f.ExposedStep = &i
			return n, nil
		case "outbound_calls":
			return intField(obj, q, &f.OutboundCalls)
		case "send_reports":
			return intField(obj, q, &f.SendReports)
		case "legit_report":
			return boolField(obj, q, &f.LegitReport)
		case "injected_action":
			return boolField(obj, q, &f.InjectedAction)
		case "dual_completion":
			return boolField(obj, q, &f.DualCompletion)
		case "tracer":
			t := &f.Tracer
			sub := obj
			return scanObjectAt(obj, q, func(k []byte, r int) (int, error) {
				switch string(k) {
				case "calls":
					return intField(sub, r, &t.Calls)
				case "tp":
					return intField(sub, r, &t.TP)
				case "fp":
					return intField(sub, r, &t.FP)
				case "fn":
					return intField(sub, r, &t.FN)
				case "hits":
					return intField(sub, r, &t.Hits)
				case "top1":
					return intField(sub, r, &t.Top1)
				}
				return skipUnknown(sub, r, k)
			})
		case "features":
			sub := obj
			slots := featureSlots(&f.Features)
			next := 0 // features come in declaration order: try the next one first
			return scanObjectAt(obj, q, func(k []byte, r int) (int, error) {
				i := next
				if i >= len(results.FeatureNames) || results.FeatureNames[i] != string(k) {
					var ok bool
					if i, ok = featureIndex[string(k)]; !ok {
						return skipUnknown(sub, r, k)
					}
				}
				next = i + 1
				v, next, err := parseFloat(sub, r)
				slots[i] = v
				return next, err
			})
		case "provenance":
			return skipValue(obj, q)
		}
		return skipUnknown(obj, q, key)
	})
	if err != nil {
		return nil, p, err
	}
	return f, end, nil
}

// numberEnd returns the end of the JSON number at p.
func numberEnd(data []byte, p int) int {
	q := p
	for q < len(data) {
		switch c := data[q]; {
		case c >= '0' && c <= '9', c == '-', c == '+', c == '.', c == 'e', c == 'E':
			q++
		default:
			return q
		}
	}
	return q
}

// parseFloat reads a JSON number (null reads as 0, as encoding/json leaves
// the field untouched).
func parseFloat(data []byte, p int) (float64, int, error) {
	if bytes.HasPrefix(data[p:], []byte("null")) {
		return 0, p + 4, nil
	}
	q := numberEnd(data, p)
	if q == p {
		return 0, p, errScan
	}
	v, err := strconv.ParseFloat(unsafe.String(&data[p], q-p), 64)
	if err != nil {
		return 0, p, errScan
	}
	return v, q, nil
}

func optFloat(data []byte, p int, dst **float64) (int, error) {
	if bytes.HasPrefix(data[p:], []byte("null")) {
		*dst = nil
		return p + 4, nil
	}
	v, q, err := parseFloat(data, p)
	if err != nil {
		return p, err
	}
	*dst = &v
	return q, nil
}

func floatArray(data []byte, p int, dst *[]float64) (int, error) {
	if bytes.HasPrefix(data[p:], []byte("null")) {
		*dst = nil
		return p + 4, nil
	}
	if data[p] != '[' {
		return p, errScan
	}
	out := []float64{}
	q := skipWS(data, p+1)
	if q < len(data) && data[q] == ']' {
		*dst = out
		return q + 1, nil
	}
	for q < len(data) {
		v, n, err := parseFloat(data, q)
		if err != nil || bytes.HasPrefix(data[q:], []byte("null")) {
			return p, errScan
		}
		out = append(out, v)
		q = skipWS(data, n)
		if q >= len(data) {
			break
		}
		switch data[q] {
		case ',':
			q = skipWS(data, q+1)
		case ']':
			*dst = out
			return q + 1, nil
		default:
			return p, errScan
		}
	}
	return p, errScan
}

func intField(data []byte, p int, dst *int) (int, error) {
	v, q, ok := parseInt(data, p)
	if !ok {
		return p, errScan
	}
	*dst = int(v)
	return q, nil
}

func boolField(data []byte, p int, dst *bool) (int, error) {
	if bytes.HasPrefix(data[p:], []byte("null")) {
		return p + 4, nil
	}
	v, q, ok := parseBool(data, p)
	if !ok {
		return p, errScan
	}
	*dst = v
	return q, nil
}
