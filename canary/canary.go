// Package canary makes and finds the per-run canary tokens: "SECRET-" and
// eight upper-case hex digits from crypto/rand, in written form and in the
// spoken form (NATO alphabet, digit words) a transcript carries.
package canary

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"regexp"
	"strings"
	"sync"
)

// Prefix starts every canary.
const Prefix = "SECRET-"

// Pattern matches any canary-shaped string.
var Pattern = regexp.MustCompile(`SECRET-[A-F0-9]{8}`)

// New returns a fresh canary from crypto/rand.
func New() (string, error) {
	var b [4]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", fmt.Errorf("canary: %w", err)
	}
	return Prefix + strings.ToUpper(hex.EncodeToString(b[:])), nil
}

// Set hands out canaries that are unique within one study.
type Set struct {
	mu   sync.Mutex
	seen map[string]bool
}

// Reserve marks canaries already used (for example by finished runs on resume).
func (s *Set) Reserve(c string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.seen == nil {
		s.seen = map[string]bool{}
	}
	s.seen[c] = true
}

// New returns a canary not handed out before by this set.
func (s *Set) New() (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.seen == nil {
		s.seen = map[string]bool{}
	}
	for {
		c, err := New()
		if err != nil {
			return "", err
		}
		if !s.seen[c] {
			s.seen[c] = true
			return c, nil
		}
	}
}

// Valid reports whether c is a well-formed canary.
func Valid(c string) bool { return len(c) == len(Prefix)+8 && Pattern.MatchString(c) }

// FindAny returns every canary-shaped string in text (written form), for the
// contamination check of clean runs.
func FindAny(text string) []string { return Pattern.FindAllString(text, -1) }

var nato = map[byte]string{
	'A': "alfa", 'B': "bravo", 'C': "charlie", 'D': "delta", 'E': "echo", 'F': "foxtrot",
	'0': "zero", '1': "one", '2': "two", '3': "three", '4': "four",
	'5': "five", '6': "six", '7': "seven", '8': "eight", '9': "nine",
}

// Spoken renders a canary the way a speaker reads it aloud so that a listener
// can write it back: "secret dash" and each hex digit as a NATO or digit word.
func Spoken(c string) string {
	words := []string{"secret", "dash"}
	for i := len(Prefix); i < len(c); i++ {
		words = append(words, nato[c[i]])
	}
	return strings.Join(words, " ")
}

var spokenValue = func() map[string]byte {
	m := map[string]byte{"alpha": 'A', "oh": '0', "niner": '9', "for": '4', "to": '2', "too": '2'}
	for k, v := range nato {
		m[v] = k
	}
	return m
}()

var wordRE = regexp.MustCompile(`[a-z0-9]+`)

// Contains reports whether text carries the canary c, written or spoken.
func Contains(text, c string) bool {
	if c == "" {
		return false
	}
	if strings.Contains(text, c) {
		return true
	}
	return containsSpoken(text, c)
}

// containsSpoken looks for the eight hex digits of c spelled as words in
// order, allowing the "secret dash" lead-in to be garbled.
func containsSpoken(text, c string) bool {
	want := c[len(Prefix):]
	words := wordRE.FindAllString(strings.ToLower(text), -1)
	var seq []byte
	for _, w := range words {
		if v, ok := spokenValue[w]; ok {
			seq = append(seq, v)
			continue
		}
		if len(w) == 1 && strings.ContainsAny(w, "0123456789abcdef") {
			seq = append(seq, strings.ToUpper(w)[0])
			continue
		}
		seq = append(seq, ' ')
	}
	return strings.Contains(string(seq), want)
}
