package report

import (
	"fmt"
	"reflect"
	"unsafe"

	"github.com/killchain/killchain/results"
	"github.com/killchain/killchain/results/jsonscan"
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
	f := &results.Forensics{}
	end, err := jsonscan.ObjectAt(data, p, func(key []byte, q int) (int, error) {
		switch string(key) {
		case "drift":
			if jsonscan.IsNull(data, q) {
				f.Drift = nil
				return q + 4, nil
			}
			var err error
			f.Drift, q, err = jsonscan.Floats(data, q, nil)
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
			t := &f.Tracer
			return jsonscan.ObjectAt(data, q, func(k []byte, r int) (int, error) {
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
		case "features":
			slots := featureSlots(&f.Features)
			next := 0 // features come in declaration order: try the next one first
			return jsonscan.ObjectAt(data, q, func(k []byte, r int) (int, error) {
				i := next
				if i >= len(results.FeatureNames) || results.FeatureNames[i] != string(k) {
					var ok bool
					if i, ok = featureIndex[string(k)]; !ok {
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
		case "provenance":
			return jsonscan.Skip(data, q)
		}
		return jsonscan.SkipUnknown(data, q, key)
	})
	if err != nil {
		return nil, p, err
	}
	return f, end, nil
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
