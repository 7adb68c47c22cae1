package limits

import (
	"strings"
	"sync"
)

// Redacted replaces a secret wherever one would have appeared.
const Redacted = "[REDACTED]"

// Secrets is a set of values (API keys) that must never appear in an
// error, a log line or a stored blob. A nil *Secrets scrubs nothing.
type Secrets struct {
	mu   sync.RWMutex
	vals []string
}

// NewSecrets holds the non-empty values given.
func NewSecrets(vals ...string) *Secrets {
	s := &Secrets{}
	for _, v := range vals {
		s.Add(v)
	}
	return s
}

// Add registers one more secret; values shorter than 4 bytes are ignored
// (they would scrub ordinary words).
func (s *Secrets) Add(v string) {
	if s == nil || len(strings.TrimSpace(v)) < 4 {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.vals = append(s.vals, v)
}

// Scrub returns text with every secret replaced by Redacted.
func (s *Secrets) Scrub(text string) string {
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
func (s *Secrets) ScrubBytes(b []byte) []byte {
	if s == nil || len(b) == 0 {
		return b
	}
	return []byte(s.Scrub(string(b)))
}
