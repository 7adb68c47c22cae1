package scripted

import (
	"strings"

	lru "github.com/hashicorp/golang-lru/v2"
)

// memo remembers a pure function's results for the texts it was last
// given. A scripted agent plans again from the whole conversation at every
// step, so without it the same tool results, descriptions and prompts are
// parsed again at each of a run's steps, and the same ones across runs.
type memo[V any] struct {
	c       *lru.Cache[string, V]
	f       func(string) V
	maxText int
}

// newMemo remembers f's results for the size texts of at most maxText
// bytes given last.
func newMemo[V any](size, maxText int, f func(string) V) *memo[V] {
	c, err := lru.New[string, V](size)
	if err != nil {
		panic(err) // only for a size below 1
	}
	return &memo[V]{c: c, f: f, maxText: maxText}
}

// get returns f(text), computed once while text stays remembered; longer
// texts are not remembered, so that the memos stay small.
func (m *memo[V]) get(text string) V {
	if len(text) > m.maxText {
		return m.f(text)
	}
	if v, ok := m.c.Get(text); ok {
		return v
	}
	v := m.f(text)
	// A copy: text may be a line of a much longer text, which the key
	// would otherwise keep alive.
	m.c.Add(strings.Clone(text), v)
	return v
}

// memoSize bounds each memo: a few runs' worth of texts for each of
// hundreds of runs in flight; memoText the length of a text remembered
// and memoLine of a line. The memos hold at most 3 × memoSize texts of
// memoText bytes (with results of their size) and 4 × memoSize lines of
// memoLine: about 230 MiB at worst, a few MiB in a study.
const (
	memoSize = 2048
	memoText = 16 << 10
	memoLine = 2 << 10
)

var (
	briefs         = newMemo(memoSize, memoText, parseBrief)
	parsed         = newMemo(memoSize, memoText, parse)
	normalized     = newMemo(memoSize, memoText, normalize)
	directiveLines = newMemo(4*memoSize, memoLine, DirectivePattern.MatchString)
)
