package secrets

import "testing"

func TestScrub(t *testing.T) {
	s := New("sk-abc123", "", "no")
	got := s.Scrub("key sk-abc123 and sk-abc123; no change")
	if got != "key [REDACTED] and [REDACTED]; no change" {
		t.Errorf("Scrub = %q", got)
	}
	var nilS *Set
	if nilS.Scrub("x") != "x" {
		t.Error("nil Secrets changed text")
	}
}
