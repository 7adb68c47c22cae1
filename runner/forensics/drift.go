package forensics

import "math"

// DriftMinLen is the shortest token objective drift counts.
const DriftMinLen = 3

// Drift returns, for each step text, its TF-IDF cosine distance from the
// task text: 1 − cos(v(step), v(task)), in [0, 1].
//
// The documents are the task text and the step texts of the one run; term
// frequency is the raw count of a token (Tokens with DriftMinLen) in a
// document and inverse document frequency is the smoothed
// idf(t) = ln((1+N)/(1+df(t))) + 1 over those N documents, so a token that
// is in every document still weighs 1. A step without tokens, or a task text
// without tokens, is at distance 1: it shares nothing with the task.
func Drift(task string, steps []string) []float64 {
	docs := make([]map[string]float64, 0, len(steps)+1)
	df := make(map[string]int)
	add := func(text string) {
		tf := make(map[string]float64)
		for _, t := range Tokens(text, DriftMinLen) {
			tf[t]++
		}
		for t := range tf {
			df[t]++
		}
		docs = append(docs, tf)
	}
	add(task)
	for _, s := range steps {
		add(s)
	}
	n := float64(len(docs))
	idf := make(map[string]float64, len(df))
	for t, d := range df {
		idf[t] = math.Log((1+n)/(1+float64(d))) + 1
	}
	taskVec := docs[0]
	taskNorm := norm(taskVec, idf)
	out := make([]float64, len(steps))
	for i, tf := range docs[1:] {
		sn := norm(tf, idf)
		if sn == 0 || taskNorm == 0 {
			out[i] = 1
			continue
		}
		dot := 0.0
		for t, c := range tf {
			if tc, ok := taskVec[t]; ok {
				w := idf[t]
				dot += c * w * tc * w
			}
		}
		out[i] = clamp01(1 - dot/(sn*taskNorm))
	}
	return out
}

func norm(tf map[string]float64, idf map[string]float64) float64 {
	s := 0.0
	for t, c := range tf {
		w := c * idf[t]
		s += w * w
	}
	return math.Sqrt(s)
}

func clamp01(x float64) float64 {
	// Rounding can leave 1 − cos a hair outside [0, 1].
	return math.Min(1, math.Max(0, x))
}
