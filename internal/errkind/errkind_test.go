package errkind

import "testing"

func TestKinds(t *testing.T) {
	tests := []struct {
		kind      string
		known     bool
		retryable bool
	}{
		{"truncated", true, false},
		{"refused", true, false},
		{"attacker", true, false},
		{"provider", true, true},
		{"sandbox", true, true},
		{"defense", true, false},
		{"verifier", true, true},
		{"internal", true, false},
		{"", false, false},
		{"other", false, false},
	}
	for _, tt := range tests {
		t.Run(tt.kind, func(t *testing.T) {
			if got := Known(tt.kind); got != tt.known {
				t.Errorf("Known = %v, want %v", got, tt.known)
			}
			if got := Kind(tt.kind).Retryable(); got != tt.retryable {
				t.Errorf("Retryable = %v, want %v", got, tt.retryable)
			}
		})
	}
	if len(All) != 8 {
		t.Errorf("All has %d kinds", len(All))
	}
}
