// Package secrets holds the values (API keys) that must never appear in an
// error, a log line or a stored blob, and scrubs them from text.
package secrets

import (
	"strings"
	"sync"
)

// Redacted replaces a secret wherever one would have appeared.
const Redacted = "[REDACTED]"

// Set is a set of values (API keys) that must never appear in an
// error, a log line or a stored blob. A nil *Set scrubs nothing.
type Set struct {
	mu   sync.RWMutex
	vals []string
}

// New holds the non-empty values given.
func New(vals ...string) *Set {
	s := &Set{}
	for _, v := range vals {
		s.Add(v)
	}
	return s
}

// Add registers one more secret; values shorter than 4 bytes are ignored
// (they would scrub ordinary words).
func (s *Set) Add(v string) {
	if s == nil || len(strings.TrimSpace(v)) < 4 {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.vals = append(s.vals, v)
}

// Scrub returns text with every secret replaced by Redacted.
func (s *Set) Scrub(text string) string {
	if s == nil {
		return text
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	for _, v := range s.vals {
		text = strings.ReplaceAll(text, v, Redacted)
	}
	return text
}

// ScrubBytes is Scrub for byte slices.
func (s *Set) ScrubBytes(b []byte) []byte {
	if s == nil || len(b) == 0 {
		return b
	}
	return []byte(s.Scrub(string(b)))
}
