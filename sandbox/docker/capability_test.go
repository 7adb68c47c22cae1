package docker

import (
	"slices"
	"testing"

	"github.com/killchain/killchain/sandbox"
)

func TestOptionsCapabilities(t *testing.T) {
	tests := []struct {
		name  string
		audio *Audio
		want  []sandbox.Capability
	}{
		{"no audio image", nil, nil},
		{"audio image", &Audio{Image: "killchain/debian"}, []sandbox.Capability{sandbox.Audio}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := DefaultOptions()
			o.Audio = tt.audio
			if got := o.Capabilities(); !slices.Equal(got, tt.want) {
				t.Errorf("Capabilities() = %v, want %v", got, tt.want)
			}
			if got := (&Backend{opts: o}).Capabilities(); !slices.Equal(got, tt.want) {
				t.Errorf("Backend.Capabilities() = %v, want %v", got, tt.want)
			}
		})
	}
}
