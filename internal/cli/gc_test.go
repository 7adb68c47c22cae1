package cli

import (
	"os"
	"runtime/debug"
	"testing"
)

// TestTuneStudyGC: the study commands' GC target applies only where the
// user set no GOGC.
func TestTuneStudyGC(t *testing.T) {
	tests := []struct {
		name string
		gogc string // "-": unset
		want int
	}{
		{"GOGC unset", "-", studyGCPercent},
		{"GOGC set", "50", 50},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv("GOGC", tt.gogc)
			if tt.gogc == "-" {
				os.Unsetenv("GOGC")
			}
			prev := debug.SetGCPercent(tt.want)
			defer debug.SetGCPercent(prev)
			if tt.gogc != "-" {
				debug.SetGCPercent(50) // what the runtime read from GOGC=50
			} else {
				debug.SetGCPercent(100)
			}
			tuneStudyGC()
			if got := debug.SetGCPercent(100); got != tt.want {
				t.Errorf("GC percent = %d, want %d", got, tt.want)
			}
		})
	}
}
