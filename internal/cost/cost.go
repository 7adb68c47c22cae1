// Package cost turns token counts into money: per-model prices (a model
// block's price block, or a pricing file a study names), the cost of one
// run, and the budget that keeps a study under its cost limit. It owns the
// pricing file format (HCL or JSON) and knows nothing of drivers, sandboxes
// or study folders.
package cost

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Million is the unit prices are given in: US dollars per million tokens.
const Million = 1_000_000

// Price is what a model's tokens cost, in US dollars per million tokens.
// Input is the price of input tokens read fresh; CachedInput of input
// tokens the provider read from its prompt cache and CacheWrite of input
// tokens it wrote to it (both nil: the input price); Output is the price
// of output tokens and Reasoning of the reasoning tokens among them (nil:
// the output price).
type Price struct {
	Input       float64  `json:"input" hcl:"input"`
	CachedInput *float64 `json:"cached_input,omitempty" hcl:"cached_input,optional"`
	CacheWrite  *float64 `json:"cache_write,omitempty" hcl:"cache_write,optional"`
	Output      float64  `json:"output" hcl:"output"`
	Reasoning   *float64 `json:"reasoning,omitempty" hcl:"reasoning,optional"`
}

// Validate returns every problem of the price: a negative or non-finite
// figure.
func (p Price) Validate() []error {
	var errs []error
	check := func(name string, v *float64) {
		if v != nil && (*v < 0 || math.IsNaN(*v) || math.IsInf(*v, 0)) {
			errs = append(errs, fmt.Errorf("price %s must be a finite number of dollars per million tokens, not below 0; got %g", name, *v))
		}
	}
	check("input", &p.Input)
	check("cached_input", p.CachedInput)
	check("cache_write", p.CacheWrite)
	check("output", &p.Output)
	check("reasoning", p.Reasoning)
	return errs
}

// String is the price as a person reads it: "$0.15 in, $0.075 cached, $0.60 out"
// (a rate, written to the cent, or with every digit it has below one).
func (p Price) String() string {
	parts := []string{"$" + figure(p.Input) + " in"}
	if p.CachedInput != nil {
		parts = append(parts, "$"+figure(*p.CachedInput)+" cached")
	}
	if p.CacheWrite != nil {
		parts = append(parts, "$"+figure(*p.CacheWrite)+" cache write")
	}
	parts = append(parts, "$"+figure(p.Output)+" out")
	if p.Reasoning != nil {
		parts = append(parts, "$"+figure(*p.Reasoning)+" reasoning")
	}
	return strings.Join(parts, ", ") + " per 1M tokens"
}

func figure(v float64) string {
	if c := v * 100; c == math.Trunc(c) {
		return strconv.FormatFloat(v, 'f', 2, 64)
	}
	return strconv.FormatFloat(v, 'f', -1, 64)
}

// Tokens are one run's (or one call's) token counts as runs.jsonl keeps
// them. Input counts every input token, the cached ones and the ones
// written to the cache among them; Output counts every output token, the
// reasoning ones among them.
type Tokens struct {
	Input       int
	CachedInput int
	CacheWrite  int
	Output      int
	Reasoning   int
}

// Add sums counts.
func (t *Tokens) Add(o Tokens) {
	t.Input += o.Input
	t.CachedInput += o.CachedInput
	t.CacheWrite += o.CacheWrite
	t.Output += o.Output
	t.Reasoning += o.Reasoning
}

// Sub is t less o, never below 0 in any count.
func (t Tokens) Sub(o Tokens) Tokens {
	sub := func(a, b int) int { return max(0, a-b) }
	return Tokens{Input: sub(t.Input, o.Input), CachedInput: sub(t.CachedInput, o.CachedInput), CacheWrite: sub(t.CacheWrite, o.CacheWrite),
		Output: sub(t.Output, o.Output), Reasoning: sub(t.Reasoning, o.Reasoning)}
}

// Cost is what tokens cost at price p, in US dollars. Input tokens neither
// cached nor written to the cache are billed at Input; output tokens that
// are not reasoning at Output. Counts that contradict each other (more
// cached tokens than input tokens) are clamped, never negative.
func (p Price) Cost(t Tokens) float64 {
	or := func(v *float64, def float64) float64 {
		if v != nil {
			return *v
		}
		return def
	}
	cached := min(t.CachedInput, t.Input)
	write := min(t.CacheWrite, t.Input-cached)
	fresh := t.Input - cached - write
	reasoning := min(t.Reasoning, t.Output)
	plain := t.Output - reasoning
	usd := float64(fresh)*p.Input + float64(cached)*or(p.CachedInput, p.Input) + float64(write)*or(p.CacheWrite, p.Input) +
		float64(plain)*p.Output + float64(reasoning)*or(p.Reasoning, p.Output)
	return usd / Million
}

// Round keeps a cost to the micro-dollar, so that sums of recorded costs
// do not gather binary noise.
func Round(usd float64) float64 { return math.Round(usd*1e6) / 1e6 }

// Dollars is how every amount of money is printed, in every message,
// table and log line: two decimals from a cent up ("$0.98", "$1.00",
// "$3.41"), two significant digits under a cent ("$0.0042", "$0.000042"),
// "$0" for nothing; never a float's raw digits.
func Dollars(usd float64) string {
	sign := ""
	if usd < 0 {
		sign, usd = "-", -usd
	}
	switch {
	case usd == 0:
		return "$0"
	case usd >= 0.01 || math.IsInf(usd, 0) || math.IsNaN(usd):
		return sign + "$" + strconv.FormatFloat(usd, 'f', 2, 64)
	}
	// Two significant digits: as many decimals as reach the second.
	decimals := 1 - int(math.Floor(math.Log10(usd)))
	s := strconv.FormatFloat(usd, 'f', decimals, 64)
	if strings.Contains(s, ".") {
		s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	}
	return sign + "$" + s
}
