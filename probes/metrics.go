package probes

import (
	"encoding/json"
	"math"
	"slices"

	"github.com/killchain/killchain/internal/stats"
)

// Interval is an estimate with a 95% interval.
type Interval struct {
	Value float64 `json:"value"`
	Lo    float64 `json:"lo"`
	Hi    float64 `json:"hi"`
	N     int     `json:"n"`
}

// ThresholdAtFPR is the score a clean-control row exceeds with
// probability at most fpr: the (1-fpr) quantile of the clean scores (the
// largest clean score when there are fewer than 1/fpr of them).
func ThresholdAtFPR(clean []float64, fpr float64) float64 {
	if len(clean) == 0 {
		return math.Inf(1)
	}
	s := slices.Clone(clean)
	slices.Sort(s)
	k := int(math.Ceil((1 - fpr) * float64(len(s))))
	if k >= len(s) {
		k = len(s) - 1
	}
	// fire strictly above the threshold
	return s[k]
}

// wilson is the rate k/n with its Wilson 95% interval (stats.Wilson).
// With n = 0 the rate is undefined (NaN, null in train.json) and the
// interval the whole range [0, 1].
func wilson(k, n int) Interval {
	lo, hi := stats.Wilson(k, n, stats.Z95)
	iv := Interval{Value: math.NaN(), Lo: lo, Hi: hi, N: n}
	if n > 0 {
		iv.Value = float64(k) / float64(n)
	}
	return iv
}

// intervalJSON is Interval on the wire: NaN (a split with one class) is null.
type intervalJSON struct {
	Value *float64 `json:"value"`
	Lo    *float64 `json:"lo"`
	Hi    *float64 `json:"hi"`
	N     int      `json:"n"`
}

func num(x float64) *float64 {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return nil
	}
	return &x
}

func val(p *float64) float64 {
	if p == nil {
		return math.NaN()
	}
	return *p
}

// MarshalJSON writes NaN as null.
func (iv Interval) MarshalJSON() ([]byte, error) {
	return json.Marshal(intervalJSON{Value: num(iv.Value), Lo: num(iv.Lo), Hi: num(iv.Hi), N: iv.N})
}

// UnmarshalJSON reads null as NaN.
func (iv *Interval) UnmarshalJSON(b []byte) error {
	var w intervalJSON
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	*iv = Interval{Value: val(w.Value), Lo: val(w.Lo), Hi: val(w.Hi), N: w.N}
	return nil
}
