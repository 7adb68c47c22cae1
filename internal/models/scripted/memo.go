package scripted

import (
	lru "github.com/hashicorp/golang-lru/v2"
)

// memo remembers a pure function's results for the texts it was last
// given. A scripted agent plans again from the whole conversation at every
// step, so without it the same tool results, descriptions and prompts are
// parsed again at each of a run's steps, and the same ones across runs.
type memo[V any] struct {
	c *lru.Cache[string, V]
	f func(string) V
}

// newMemo remembers f's results for the size texts given last.
func newMemo[V any](size int, f func(string) V) *memo[V] {
	c, err := lru.New[string, V](size)
	if err != nil {
		panic(err) // only for a size below 1
	}
	return &memo[V]{c: c, f: f}
}

// get returns f(text), computed once while text stays remembered; texts
// over memoText bytes are not remembered, so that the memos stay small.
func (m *memo[V]) get(text string) V {
	if len(text) > memoText {
		return m.f(text)
	}
	if v, ok := m.c.Get(text); ok {
		return v
	}
	v := m.f(text)
	m.c.Add(text, v)
	return v
}

// memoSize bounds each memo: a few runs' worth of texts for each of
// hundreds of runs in flight; memoText the length of a text remembered.
// A memo holds at most memoSize texts of memoText bytes and their results.
const (
	memoSize = 2048
	memoText = 16 << 10
)

var (
	briefs         = newMemo(memoSize, parseBrief)
	parsed         = newMemo(memoSize, parse)
	normalized     = newMemo(memoSize, normalize)
	directiveLines = newMemo(4*memoSize, DirectivePattern.MatchString)
)
