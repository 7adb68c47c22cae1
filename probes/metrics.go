package probes

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"slices"
	"sort"
)

// AUROC is the area under the ROC curve of scores against labels (ties
// count half); NaN when a class is empty.
func AUROC(scores []float64, y []bool) float64 {
	idx := make([]int, len(scores))
	for i := range idx {
		idx[i] = i
	}
	sort.Slice(idx, func(a, b int) bool { return scores[idx[a]] < scores[idx[b]] })
	var pos, neg, rankSum float64
	for i := 0; i < len(idx); {
		j := i
		for j < len(idx) && scores[idx[j]] == scores[idx[i]] {
			j++
		}
		avg := float64(i+j+1) / 2 // mean of ranks i+1..j
		for k := i; k < j; k++ {
			if y[idx[k]] {
				rankSum += avg
				pos++
			} else {
				neg++
			}
		}
		i = j
	}
	if pos == 0 || neg == 0 {
		return math.NaN()
	}
	return (rankSum - pos*(pos+1)/2) / (pos * neg)
}

// Interval is an estimate with a 95% interval.
type Interval struct {
	Value float64 `json:"value"`
	Lo    float64 `json:"lo"`
	Hi    float64 `json:"hi"`
	N     int     `json:"n"`
}

// BootstrapAUROC is AUROC with a percentile bootstrap interval over
// groups (runs): rows of one run are resampled together.
func BootstrapAUROC(scores []float64, y []bool, groups []string, reps int, seed uint64) Interval {
	iv := Interval{Value: AUROC(scores, y), N: len(y)}
	if math.IsNaN(iv.Value) || reps <= 0 {
		iv.Lo, iv.Hi = math.NaN(), math.NaN()
		return iv
	}
	byGroup := map[string][]int{}
	var keys []string
	for i, g := range groups {
		if _, ok := byGroup[g]; !ok {
			keys = append(keys, g)
		}
		byGroup[g] = append(byGroup[g], i)
	}
	rng := rand.New(rand.NewPCG(seed, 0xa0c))
	var vals []float64
	s, t := make([]float64, 0, len(y)), make([]bool, 0, len(y))
	for range reps {
		s, t = s[:0], t[:0]
		for range keys {
			for _, i := range byGroup[keys[rng.IntN(len(keys))]] {
				s, t = append(s, scores[i]), append(t, y[i])
			}
		}
		if a := AUROC(s, t); !math.IsNaN(a) {
			vals = append(vals, a)
		}
	}
	if len(vals) == 0 {
		iv.Lo, iv.Hi = math.NaN(), math.NaN()
		return iv
	}
	slices.Sort(vals)
	iv.Lo = vals[int(0.025*float64(len(vals)-1))]
	iv.Hi = vals[int(0.975*float64(len(vals)-1))]
	return iv
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

// Wilson is the Wilson 95% interval of k successes in n.
func Wilson(k, n int) Interval {
	if n == 0 {
		return Interval{Value: math.NaN(), Lo: math.NaN(), Hi: math.NaN()}
	}
	const z = 1.959964
	p := float64(k) / float64(n)
	nn := float64(n)
	den := 1 + z*z/nn
	c := (p + z*z/(2*nn)) / den
	h := z * math.Sqrt(p*(1-p)/nn+z*z/(4*nn*nn)) / den
	return Interval{Value: p, Lo: math.Max(0, c-h), Hi: math.Min(1, c+h), N: n}
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
