package cost

import "sync"

// Estimator guesses what the next run of a kind will cost from the runs
// of that kind recorded so far: their mean, else the highest mean of any
// kind seen (a run of a new kind could cost as much as the dearest), else
// a prior (a plan's estimate, or 0 when there is none). A kind is whatever
// key the caller groups runs by (Key). It is safe for concurrent use.
type Estimator struct {
	mu    sync.Mutex
	prior float64
	byKey map[string]*mean
}

type mean struct {
	n   int
	sum float64
}

// Key is the one key of a run's kind: its task, models and condition. The
// Estimator learns by it while a study runs, and a plan's History groups
// an earlier folder's runs by it.
func Key(task, modelA, modelB, condition string) string {
	return task + "|" + modelA + "|" + modelB + "|" + condition
}

// NewEstimator returns an estimator that says prior until a run is seen.
func NewEstimator(prior float64) *Estimator {
	return &Estimator{prior: prior, byKey: map[string]*mean{}}
}

// Observe records what a run of kind key cost.
func (e *Estimator) Observe(key string, usd float64) {
	e.mu.Lock()
	defer e.mu.Unlock()
	m := e.byKey[key]
	if m == nil {
		m = &mean{}
		e.byKey[key] = m
	}
	m.n++
	m.sum += usd
}

// Next is the estimated cost of the next run of kind key.
func (e *Estimator) Next(key string) float64 {
	e.mu.Lock()
	defer e.mu.Unlock()
	if m := e.byKey[key]; m != nil && m.n > 0 {
		return m.sum / float64(m.n)
	}
	if len(e.byKey) == 0 {
		return e.prior
	}
	high := 0.0
	for _, m := range e.byKey {
		high = max(high, m.sum/float64(m.n))
	}
	return high
}

// CharsPerToken is the rule of thumb a prompt-size estimate counts tokens
// by: about four characters of English text per token.
const CharsPerToken = 4

// Conversation estimates the tokens of one agent's conversation from sizes
// alone: every turn sends the fixed prompt (system prompt, task prompt and
// tool descriptions, promptChars characters) and everything said so far;
// each turn adds outPerTurn output tokens and a tool result of resultChars
// characters. It is an estimate, and callers must say so.
func Conversation(promptChars, resultChars, turns, outPerTurn int) Tokens {
	var t Tokens
	context := promptChars / CharsPerToken
	for range max(turns, 0) {
		t.Input += context
		t.Output += outPerTurn
		context += outPerTurn + resultChars/CharsPerToken
	}
	return t
}
